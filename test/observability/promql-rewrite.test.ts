// The rewrites the real-Prometheus test applies before querying: variables, label_values(), bool comparisons.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { comparisonsAsBool, labelValuesAsPromql, substituteVariables } from './helpers/promql-rewrite.js';
import { ruleExpressions } from './helpers/promql-sources.js';

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
