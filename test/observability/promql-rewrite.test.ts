// The rewrites the real-Prometheus test applies before querying (variables, label_values(), bool comparisons),
// on small cases and then on everything the project ships: every variable a dashboard panel uses is one the
// dashboard declares (or Grafana's own), every variable query is a label_values() Grafana can list, and every alert
// compares at its top level. A dashboard or rule that breaks one of those fails here, Prometheus installed or not.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import {
  comparisonsAsBool,
  labelValuesAsPromql,
  substituteVariables,
  VARIABLE_VALUES,
} from './helpers/promql-rewrite.js';
import {
  type Dashboard,
  dashboardExpressions,
  ruleExpressions,
  rulesDirExpressions,
} from './helpers/promql-sources.js';
import { repoPath } from './helpers/repo-paths.js';

const dashboard = JSON.parse(readFileSync(repoPath('dashboards/tokenmeter.json'), 'utf8')) as Dashboard;
const shipped = [
  ...dashboardExpressions(dashboard),
  ...rulesDirExpressions(repoPath('dashboards/prometheus/rules')),
];
/** Variables Grafana itself defines. */
const GRAFANA_VARIABLES = ['__rate_interval', '__interval', '__range'];

test('Grafana variables become concrete values; an unknown one is an error, not a silent hole', () => {
  assert.equal(
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's ${var} syntax, not a JS template.
    substituteVariables('rate(x{upstream=~"$upstream", model=~"${model}"}[$__rate_interval])'),
    'rate(x{upstream=~".*", model=~".*"}[1m])',
  );
  assert.throws(() => substituteVariables('x{a="$nope"}'), /no test value for \$nope/);
});

test('label_values(metric{sel}, label) becomes the series Grafana lists', () => {
  assert.equal(
    labelValuesAsPromql('label_values(tokenmeter_requests_total{upstream=~".*"}, model)'),
    'group by (model) (tokenmeter_requests_total{upstream=~".*"})',
  );
});

test('comparisons gain bool, label matchers and strings stay as they are', () => {
  assert.equal(
    comparisonsAsBool('a{x!="1", y=~">"} < 0.9 and b > 3 * c'),
    'a{x!="1", y=~">"} < bool 0.9 and b > bool 3 * c',
  );
  assert.equal(comparisonsAsBool('a >= bool 1'), 'a >= bool 1');
});

test('rule files: inline and block exprs, one per rule', () => {
  const text = [
    'groups:',
    '  - name: g',
    '    rules:',
    '      - record: r:one',
    '        expr: sum(a)',
    '      - alert: Two',
    '        expr: |',
    '          b',
    '          > 1',
    '        for: 1m',
  ].join('\n');
  assert.deepEqual(ruleExpressions(text, 'f.yml'), [
    { source: 'f.yml record r:one', expr: 'sum(a)', kind: 'record' },
    { source: 'f.yml alert Two', expr: 'b > 1', kind: 'alert' },
  ]);
  assert.throws(() => ruleExpressions('      - alert: X\n        for: 1m\n', 'f.yml'), /no expr/);
});

test('the shipped dashboard: each variable a panel uses is declared, and every one has a test value', () => {
  const declared = new Set([...dashboard.templating.list.map((v) => v.name), ...GRAFANA_VARIABLES]);
  const panels = shipped.filter((e) => e.kind === 'panel');
  assert.ok(panels.length > 0, 'the dashboard has panel queries');
  for (const { source, expr } of shipped) {
    for (const [, braced, bare] of expr.matchAll(/\$\{(\w+)(?::\w+)?\}|\$(\w+)/g)) {
      const name = braced ?? bare ?? '';
      assert.ok(declared.has(name), `${source} uses $${name}, which the dashboard does not declare`);
      assert.ok(name in VARIABLE_VALUES, `${source}: $${name} has no test value`);
    }
    assert.doesNotMatch(substituteVariables(expr), /\$/, `${source}: no variable left`);
  }
});

test('the shipped variable queries are label_values() over a metric, as Grafana lists them', () => {
  const variables = shipped.filter((e) => e.kind === 'variable');
  assert.ok(variables.length > 0, 'the dashboard has query variables');
  for (const { source, expr } of variables)
    assert.match(
      labelValuesAsPromql(substituteVariables(expr)),
      /^group by \(\w+\) \(tokenmeter_\w+/,
      source,
    );
});

test('every shipped alert compares at its top level (one that does not would fire or stay silent always)', () => {
  const alerts = shipped.filter((e) => e.kind === 'alert');
  assert.ok(alerts.length > 0, 'the rules have alerts');
  for (const { source, expr } of alerts) {
    const query = comparisonsAsBool(substituteVariables(expr));
    assert.match(query, /(==|!=|>=|<=|>|<) bool /, `${source}: no comparison in ${expr}`);
  }
});
