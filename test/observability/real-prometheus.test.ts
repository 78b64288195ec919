// Nothing on the dashboard or in the rules is done until a real Prometheus has scraped a real gateway and every
// expression has returned data: this starts Debian's `prometheus` with the shipped scrape config pointed at a
// gateway and simulator under test, drives traffic in two rounds a scrape apart (so every counter has moved
// inside the rate windows), then runs every shipped expression through the HTTP API. Bounded: well under 60 s.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { after, test } from 'node:test';
import { requireTool } from './helpers/external-tool.js';
import { type PrometheusServer, pollUntil, startPrometheus } from './helpers/prometheus-server.js';
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

let stack: Stack | undefined;
let prometheus: PrometheusServer | undefined;

after(async () => {
  await prometheus?.close();
  await stack?.close();
});

function hostPort(url: string): string {
  return new URL(url).host;
}

async function scalarOf(p: PrometheusServer, expr: string): Promise<number | undefined> {
  const [first] = await p.query(expr);
  return first === undefined ? undefined : Number(first.value[1]);
}

/** Waits until Prometheus holds the values both pages show now: the last round has been scraped. */
async function waitForScrape(p: PrometheusServer, s: Stack): Promise<void> {
  const requests = s.finished();
  await pollUntil(`a scrape showing ${requests} gateway requests`, 15_000, async () =>
    (await scalarOf(p, 'sum(tokenmeter_requests_total)')) === requests ? true : undefined,
  );
  const simPage = await (await fetch(`${s.sim.url}/metrics`)).text();
  const generated = [...simPage.matchAll(/^vllm:generation_tokens_total\{[^}]*\} (\S+)$/gm)].reduce(
    (sum, m) => sum + Number(m[1]),
    0,
  );
  await pollUntil(`a scrape showing ${generated} simulator tokens`, 15_000, async () =>
    (await scalarOf(p, 'sum(vllm:generation_tokens_total)')) === generated ? true : undefined,
  );
}

interface Check {
  readonly source: string;
  readonly kind: ShippedExpression['kind'];
  readonly shipped: string;
  readonly query: string;
}

function checksToRun(): Check[] {
  const dashboard = JSON.parse(readFileSync(repoPath('dashboards/tokenmeter.json'), 'utf8')) as Dashboard;
  const shipped = [
    ...dashboardExpressions(dashboard),
    ...rulesDirExpressions(repoPath('dashboards/prometheus/rules')),
  ];
  return shipped.map((e) => {
    let query = substituteVariables(e.expr);
    if (e.kind === 'variable') query = labelValuesAsPromql(query);
    if (e.kind === 'alert') query = comparisonsAsBool(query);
    return { source: e.source, kind: e.kind, shipped: e.expr, query };
  });
}

function hasFiniteValue(samples: readonly { value: readonly [number, string] }[]): boolean {
  return samples.some((s) => Number.isFinite(Number(s.value[1])));
}

test('a real Prometheus scraping a gateway and a simulator: every dashboard and rule expression returns data', async (t) => {
  const binary = requireTool(t, 'prometheus');
  if (binary === undefined) return;
  const started = Date.now();
  stack = await startStack();
  const config = testScrapeConfig(readFileSync(repoPath('dashboards/prometheus/prometheus.yml'), 'utf8'), {
    gateway: hostPort(stack.gateway.url),
    sim: hostPort(stack.sim.url),
    rulesDir: repoPath('dashboards/prometheus/rules'),
  });
  const p = await startPrometheus(binary, config);
  prometheus = p;
  const s = stack;
  await pollUntil('both targets up', 15_000, async () => {
    const up = await p.query('up == 1');
    return up.length === 2 ? true : undefined;
  });
  // Two rounds, each waited for: counters and buckets then have two different scraped values in the window.
  for (let round = 0; round < 2; round++) {
    await driveRound(s);
    await waitForScrape(p, s);
  }

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
