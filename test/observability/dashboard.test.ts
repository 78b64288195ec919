// The Grafana dashboard is importable as is (datasource as an input and a variable, no instance-specific ids),
// filters by upstream and model, has the panels the issue asks for, only queries metrics the contract names, and
// sums every series over instances the way several replicas need (real-prometheus.test.ts shows the sums add up).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { loadContract } from './helpers/contract.js';
import {
  nonAdditiveAggregations,
  RAW_METRIC,
  targetLabelsKept,
  unsummedMetrics,
} from './helpers/promql-replicas.js';
import { type Dashboard, dashboardExpressions, rulesDirExpressions } from './helpers/promql-sources.js';
import { repoPath } from './helpers/repo-paths.js';

interface Datasource {
  readonly type?: string;
  readonly uid?: string;
}
interface Panel {
  readonly id: number;
  readonly type: string;
  readonly title: string;
  readonly datasource?: Datasource;
  readonly gridPos: { readonly x: number; readonly y: number; readonly w: number; readonly h: number };
  readonly targets?: readonly { readonly datasource?: Datasource; readonly expr: string }[];
}
interface Variable {
  readonly name: string;
  readonly type: string;
  readonly query?: string;
  readonly datasource?: Datasource;
  readonly multi?: boolean;
  readonly includeAll?: boolean;
  readonly allValue?: string;
  readonly current?: { readonly value?: unknown };
}
interface DashboardFile {
  readonly __inputs: readonly { name: string; type: string; pluginId: string }[];
  readonly id: unknown;
  readonly uid: string;
  readonly title: string;
  readonly panels: readonly Panel[];
  readonly templating: { readonly list: readonly Variable[] };
}

const dashboard = JSON.parse(readFileSync(repoPath('dashboards/tokenmeter.json'), 'utf8')) as DashboardFile;
// Grafana's own ${...} syntax, read by Grafana, not a JS template.
const DATASOURCE_VAR = ['$', '{datasource}'].join('');
const DS = { type: 'prometheus', uid: DATASOURCE_VAR };

test('importable: datasource as an __inputs input and a datasource variable, no instance id', () => {
  assert.deepEqual(
    dashboard.__inputs.map((i) => [i.name, i.type, i.pluginId]),
    [['DS_PROMETHEUS', 'datasource', 'prometheus']],
  );
  assert.equal(dashboard.id, null, 'an id would tie the file to one Grafana instance');
  assert.equal(dashboard.uid, 'tokenmeter');
  const ds = dashboard.templating.list.find((v) => v.name === 'datasource');
  assert.equal(ds?.type, 'datasource');
  assert.equal(ds?.query, 'prometheus');
  // On import Grafana replaces ${DS_PROMETHEUS} with the chosen datasource, which becomes the variable's value.
  assert.equal(ds?.current?.value, ['$', '{DS_PROMETHEUS}'].join(''));
});

test('upstream and model variables: multi-select with All as a regex', () => {
  for (const name of ['upstream', 'model']) {
    const v = dashboard.templating.list.find((x) => x.name === name);
    assert.equal(v?.type, 'query', name);
    assert.deepEqual(v?.datasource, DS, name);
    assert.equal(v?.multi, true, name);
    assert.equal(v?.includeAll, true, name);
    assert.equal(v?.allValue, '.*', name);
    assert.match(v?.query ?? '', new RegExp(`^label_values\\(tokenmeter_requests_total.*, ${name}\\)$`));
  }
});

test('every panel and target reads the datasource variable; panel ids unique; no panels overlap', () => {
  const panels = dashboard.panels.filter((p) => p.type !== 'row');
  const ids = dashboard.panels.map((p) => p.id);
  assert.equal(new Set(ids).size, ids.length);
  for (const panel of panels) {
    assert.deepEqual(panel.datasource, DS, panel.title);
    assert.ok((panel.targets ?? []).length > 0, `${panel.title} has no query`);
    for (const target of panel.targets ?? []) assert.deepEqual(target.datasource, DS, panel.title);
  }
  for (const a of dashboard.panels) {
    assert.ok(a.gridPos.x + a.gridPos.w <= 24, `${a.title} wider than the grid`);
    for (const b of dashboard.panels) {
      if (a === b) continue;
      const apart =
        a.gridPos.x + a.gridPos.w <= b.gridPos.x ||
        b.gridPos.x + b.gridPos.w <= a.gridPos.x ||
        a.gridPos.y + a.gridPos.h <= b.gridPos.y ||
        b.gridPos.y + b.gridPos.h <= a.gridPos.y;
      assert.ok(apart, `${a.title} overlaps ${b.title}`);
    }
  }
});

test('the panels the issue lists are there', () => {
  const titles = dashboard.panels.map((p) => `${p.type}: ${p.title}`);
  for (const wanted of [
    /timeseries: Requests per second by outcome/,
    /stat: Success ratio/,
    /timeseries: Time to first token/,
    /timeseries: Inter-token gap$/,
    /timeseries: Time per output token/,
    /timeseries: End-to-end duration/,
    /timeseries: Tokens per second in and out/,
    /timeseries: Requests in flight/,
    /timeseries: Gateway overhead/,
    /timeseries: Path fixes/,
    /timeseries: Failures by kind/,
    /heatmap: TTFT heatmap/,
    /heatmap: Inter-token gap heatmap/,
    /timeseries: TTFT: gateway vs server/,
    /timeseries: Inter-token: gateway gap vs server ITL/,
    /timeseries: E2E: gateway vs server/,
  ]) {
    assert.ok(
      titles.some((t) => wanted.test(t)),
      `${wanted} missing from\n${titles.join('\n')}`,
    );
  }
  const ttft = dashboard.panels.find((p) => p.title.startsWith('Time to first token'));
  assert.deepEqual(
    ttft?.targets?.map((t) => /histogram_quantile\(([\d.]+),/.exec(t.expr)?.[1]),
    ['0.5', '0.9', '0.99'],
  );
});

test('dashboard and rules query only metrics of the contract, and only recorded series that are recorded', () => {
  const contract = loadContract();
  const families = new Map(
    [...Object.entries(contract.gateway), ...Object.entries(contract.simulator)].map(([n, f]) => [n, f.type]),
  );
  const rules = rulesDirExpressions(repoPath('dashboards/prometheus/rules'));
  const recorded = new Set(rules.filter((r) => r.kind === 'record').map((r) => r.source.split(' ').pop()));
  const all = [...dashboardExpressions(dashboard as unknown as Dashboard), ...rules];
  const unknown: string[] = [];
  for (const { source, expr } of all) {
    for (const [name = ''] of expr.matchAll(RAW_METRIC)) {
      const base = name.replace(/_(bucket|sum|count)$/, '');
      const known = families.get(name) !== undefined || families.get(base) === 'histogram';
      if (!known) unknown.push(`${source}: ${name}`);
    }
    for (const [name = ''] of expr.matchAll(/\b[a-z_]+:[a-z0-9_]+:[a-z0-9_]+\b/g)) {
      if (!recorded.has(name)) unknown.push(`${source}: ${name} is not recorded`);
    }
  }
  assert.deepEqual(unknown, []);
});

test('across replicas: every panel and recording rule sums raw series with sum, naming the labels it keeps', () => {
  const shipped = [
    ...dashboardExpressions(dashboard as unknown as Dashboard).filter((e) => e.kind === 'panel'),
    ...rulesDirExpressions(repoPath('dashboards/prometheus/rules')).filter((e) => e.kind === 'record'),
  ];
  const wrong = shipped.flatMap(({ source, expr }) => [
    ...unsummedMetrics(expr).map((m) => `${source}: ${m} is not inside a sum`),
    ...nonAdditiveAggregations(expr).map(
      (a) => `${source}: "${a}" does not add instances up by named labels`,
    ),
  ]);
  assert.deepEqual(wrong, []);
  // The checks themselves find what they look for.
  assert.deepEqual(unsummedMetrics('histogram_quantile(0.9, rate(tokenmeter_ttft_bucket[5m]))'), [
    'tokenmeter_ttft_bucket',
  ]);
  assert.deepEqual(nonAdditiveAggregations('sum without (instance) (max(vllm:x))'), ['without (', 'max(']);
  assert.deepEqual(targetLabelsKept('sum by (le, pod) (rate(vllm:x[1m]))'), ['pod']);
});
