// Nothing on the dashboard or in the rules is done until a real Prometheus has scraped real gateways and every
// expression has returned data, added up across replicas: this starts Debian's `prometheus` with the shipped
// scrape config pointed at two replicas (each a gateway and its simulator, as two gateway pods in front of two
// vLLM servers would be), drives traffic in two rounds a scrape apart (so every counter has moved inside the
// rate windows; replica B gets twice replica A's traffic, so the two differ), then runs every shipped expression
// through the HTTP API: each must return data, and each panel and recording rule must equal, series by series,
// what replica A alone plus replica B alone give. Bounded: well under 60 s.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { after, type TestContext, test } from 'node:test';
import { requireTool } from './helpers/external-tool.js';
import {
  type PrometheusServer,
  pollUntil,
  type Sample,
  startPrometheus,
} from './helpers/prometheus-server.js';
import { expandRecorded, onlyInstances, outermostSums } from './helpers/promql-replicas.js';
import { comparisonsAsBool, labelValuesAsPromql, substituteVariables } from './helpers/promql-rewrite.js';
import {
  type Dashboard,
  dashboardExpressions,
  rulesDirExpressions,
  type ShippedExpression,
} from './helpers/promql-sources.js';
import { repoPath } from './helpers/repo-paths.js';
import { testScrapeConfig } from './helpers/scrape-config.js';
import { driveRound, type Stack, startStack } from './helpers/stack.js';

/** One replica: a gateway and the simulator behind it. */
let replicas: Stack[] = [];
let prometheus: PrometheusServer | undefined;

after(async () => {
  await prometheus?.close();
  for (const replica of replicas) await replica.close();
});

function hostPort(url: string): string {
  return new URL(url).host;
}

/** The scrape targets of one replica: what `instance` is for its series. */
function targetsOf(replica: Stack): string[] {
  return [hostPort(replica.gateway.url), hostPort(replica.sim.url)];
}

async function scalarOf(p: PrometheusServer, expr: string): Promise<number | undefined> {
  const [first] = await p.query(expr);
  return first === undefined ? undefined : Number(first.value[1]);
}

/** Waits until Prometheus holds the values every page shows now: the last round has been scraped. */
async function waitForScrape(p: PrometheusServer, all: readonly Stack[]): Promise<void> {
  const requests = all.reduce((sum, s) => sum + s.finished(), 0);
  await pollUntil(`a scrape showing ${requests} gateway requests`, 15_000, async () =>
    (await scalarOf(p, 'sum(tokenmeter_requests_total)')) === requests ? true : undefined,
  );
  let generated = 0;
  for (const s of all) {
    const simPage = await (await fetch(`${s.sim.url}/metrics`)).text();
    for (const m of simPage.matchAll(/^vllm:generation_tokens_total\{[^}]*\} (\S+)$/gm))
      generated += Number(m[1]);
  }
  await pollUntil(`a scrape showing ${generated} simulator tokens`, 15_000, async () =>
    (await scalarOf(p, 'sum(vllm:generation_tokens_total)')) === generated ? true : undefined,
  );
}

interface Observed {
  readonly prometheus: PrometheusServer;
  /** Unix seconds after the last round was scraped: no traffic after it, every sample of it before. */
  readonly settledAt: number;
}

/** Two replicas scraped by a real Prometheus, with traffic on both; started once for the tests below. */
let observed: Promise<Observed> | undefined;

function observeReplicas(binary: string): Promise<Observed> {
  observed ??= (async () => {
    replicas = [await startStack(), await startStack()];
    const config = testScrapeConfig(readFileSync(repoPath('dashboards/prometheus/prometheus.yml'), 'utf8'), {
      gateways: replicas.map((r) => hostPort(r.gateway.url)),
      sims: replicas.map((r) => hostPort(r.sim.url)),
      rulesDir: repoPath('dashboards/prometheus/rules'),
    });
    const p = await startPrometheus(binary, config);
    prometheus = p;
    await pollUntil('all four targets up', 15_000, async () => {
      const up = await p.query('up == 1');
      return up.length === 4 ? true : undefined;
    });
    // Two rounds, each waited for: counters and buckets then have two different scraped values in the window.
    // Replica B gets two rounds for each of A's, so a panel showing one replica cannot pass for the sum.
    const [a, b] = replicas as [Stack, Stack];
    for (let round = 0; round < 2; round++) {
      await driveRound(a);
      await driveRound(b);
      await driveRound(b);
      await waitForScrape(p, replicas);
    }
    return { prometheus: p, settledAt: Date.now() / 1000 };
  })();
  return observed;
}

/** Prometheus with both replicas observed, or undefined after skipping the test (no prometheus binary). */
async function observedPrometheus(t: TestContext): Promise<Observed | undefined> {
  const binary = requireTool(t, 'prometheus');
  return binary === undefined ? undefined : observeReplicas(binary);
}

interface Check {
  readonly source: string;
  readonly kind: ShippedExpression['kind'];
  readonly shipped: string;
  readonly query: string;
}

function shippedExpressions(): ShippedExpression[] {
  const dashboard = JSON.parse(readFileSync(repoPath('dashboards/tokenmeter.json'), 'utf8')) as Dashboard;
  return [
    ...dashboardExpressions(dashboard),
    ...rulesDirExpressions(repoPath('dashboards/prometheus/rules')),
  ];
}

function checksToRun(): Check[] {
  return shippedExpressions().map((e) => {
    let query = substituteVariables(e.expr);
    if (e.kind === 'variable') query = labelValuesAsPromql(query);
    if (e.kind === 'alert') query = comparisonsAsBool(query);
    return { source: e.source, kind: e.kind, shipped: e.expr, query };
  });
}

function hasFiniteValue(samples: readonly { value: readonly [number, string] }[]): boolean {
  return samples.some((s) => Number.isFinite(Number(s.value[1])));
}

test('a real Prometheus scraping two gateways and simulators: every dashboard and rule expression returns data', async (t) => {
  const started = Date.now();
  const p = (await observedPrometheus(t))?.prometheus;
  if (p === undefined) return;

  const checks = checksToRun();
  // Recording rules evaluate every second and alerts read them: poll until everything answers, bounded.
  const results = new Map<Check, number>();
  try {
    await pollUntil('every expression to return data', 20_000, async () => {
      for (const check of checks) {
        if ((results.get(check) ?? 0) > 0) continue;
        const samples = await p.query(check.query);
        results.set(check, hasFiniteValue(samples) ? samples.length : 0);
      }
      return [...results.values()].every((n) => n > 0) ? true : undefined;
    });
  } catch {
    // Reported below, expression by expression.
  }
  // Alerts also run as shipped: a valid expression (an empty answer is a healthy system).
  for (const check of checks.filter((c) => c.kind === 'alert')) await p.query(check.shipped);

  const lines = checks.map((c) => `${results.get(c) ?? 0} series  ${c.source}: ${c.query}`);
  process.stdout.write(
    `# ${checks.length} PromQL expressions checked against a real Prometheus ` +
      `(${((Date.now() - started) / 1000).toFixed(1)} s):\n${lines.map((l) => `#   ${l}`).join('\n')}\n`,
  );
  mkdirSync(repoPath('test-artifacts'), { recursive: true });
  writeFileSync(repoPath('test-artifacts/prometheus-expressions.txt'), `${lines.join('\n')}\n`);
  const empty = checks.filter((c) => (results.get(c) ?? 0) === 0).map((c) => `${c.source}: ${c.query}`);
  assert.deepEqual(empty, [], `expressions without data\n${p.log()}`);
  assert.ok(checks.length >= 40, `only ${checks.length} expressions found: the readers missed some`);
});

/** One answer as label set (without the name) -> value. */
type Series = Map<string, number>;

function seriesOf(samples: readonly Sample[]): Series {
  return new Map(
    samples.map((s) => {
      const { __name__: _name, ...labels } = s.metric;
      return [JSON.stringify(Object.entries(labels).sort()), Number(s.value[1])];
    }),
  );
}

// Sums of the same float rates taken in another order: equal to the last bits only.
function close(a: number, b: number): boolean {
  return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
}

// Panels over gauges of an idle system and a counter that never moves here: they are added up like the rest,
// but 0 + 0 = 0 proves little, so they are named, and any other panel that adds up only zeros fails the test.
const ALL_ZERO_HERE = [
  'dashboard panel "Requests in flight" A', // every request has finished when the check runs
  'dashboard panel "Records lost" A', // no record is lost
  'dashboard panel "Server queue" A', // the simulators are idle
  'dashboard panel "Server queue" B',
];

test('across replicas: every panel and recording rule equals replica A alone plus replica B alone', async (t) => {
  const replicasObserved = await observedPrometheus(t);
  if (replicasObserved === undefined) return;
  const { prometheus: p, settledAt } = replicasObserved;
  const [a, b] = replicas as [Stack, Stack];
  const shipped = shippedExpressions();
  const recorded = new Map(
    shipped.filter((e) => e.kind === 'record').map((e) => [e.source.split(' ').pop() ?? '', e.expr]),
  );
  // Every query at one instant, once every target has been scraped after it: a scrape begun before that instant
  // (its samples carry its start time) cannot land between two queries and change one answer but not another.
  await pollUntil('a scrape of every target after the last round', 15_000, async () =>
    ((await scalarOf(p, 'min(timestamp(up))')) ?? 0) > settledAt ? true : undefined,
  );
  const at = settledAt;
  const ask = async (expr: string): Promise<Series> => seriesOf(await p.query(expr, at));

  const wrong: string[] = [];
  const allZero: string[] = [];
  const lines: string[] = [];
  for (const e of shipped.filter((x) => x.kind === 'panel' || x.kind === 'record')) {
    // A recorded series stands for its rule: inlined, its raw series can be restricted to one replica.
    const expr = expandRecorded(substituteVariables(e.expr), recorded);
    const whole = await ask(expr);
    if ([...whole.keys()].some((k) => k.includes('"instance"')))
      wrong.push(`${e.source}: its answer keeps the instance label`);
    // The sums must add up: all replicas = A + B, series by series. A quantile or a ratio is then computed from
    // sums that hold every replica, which is what "correct across replicas" means for it.
    let zeros = true;
    let example = '';
    for (const sum of outermostSums(expr)) {
      const [all, onlyA, onlyB] = await Promise.all([
        ask(sum),
        ask(onlyInstances(sum, targetsOf(a))),
        ask(onlyInstances(sum, targetsOf(b))),
      ]);
      for (const [key, value] of all) {
        const parts = [onlyA.get(key) ?? 0, onlyB.get(key) ?? 0] as const;
        if (!close(value, parts[0] + parts[1]))
          wrong.push(`${e.source}: ${sum} at ${key} is ${value}, A + B = ${parts[0]} + ${parts[1]}`);
        if (parts[0] !== 0 && parts[1] !== 0) zeros = false;
        example ||= `${parts[0].toPrecision(4)} + ${parts[1].toPrecision(4)} = ${value.toPrecision(4)}`;
      }
    }
    if (zeros) allZero.push(e.source);
    lines.push(`${e.source}: ${outermostSums(expr).length} sum(s) add up, e.g. ${example || 'no series'}`);
  }
  process.stdout.write(`# replicas A + B = all (one instant):\n${lines.map((l) => `#   ${l}`).join('\n')}\n`);
  mkdirSync(repoPath('test-artifacts'), { recursive: true });
  writeFileSync(repoPath('test-artifacts/prometheus-replicas.txt'), `${lines.join('\n')}\n`);
  assert.deepEqual(wrong, []);
  assert.deepEqual(allZero, ALL_ZERO_HERE);
});
