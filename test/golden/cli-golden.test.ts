// The CLI's behaviour frozen in golden files (issue 29): the load generator is to be restructured, and its text
// (times masked) and result-JSON keys must read the same before and after. One seeded simulator at 1 ms per token
// and one gateway in front of it; then every invocation below runs the real bin/tokenmeter.js in a scratch folder
// under os.tmpdir(), in order (later ones read what earlier ones wrote: compare, merge, report, trace export).
//
// For each invocation, test/golden/expected/ holds:
//   <name>.txt        its stdout and stderr, masked by normalise.ts, its exit code and the files it wrote;
//   <name>.keys.json  for the JSON it wrote or printed: sorted key paths (arrays as []) and the deterministic values.
//   <name>.html.txt   for the HTML page it wrote: its headings and table and chart captions, in order.
//
// Compare:  npm run build && node scripts/run-tests.js dist/test/golden/cli-golden.test.js
// Rewrite:  npm run build && UPDATE_GOLDEN=1 node scripts/run-tests.js dist/test/golden/cli-golden.test.js
//           then read `git diff test/golden/expected/`: every changed line is a behaviour change to own or undo.
//
// What is masked and why is in normalise.ts; what was left out is said beside each invocation. Progress lines are
// off (--disable-tqdm): how many print depends on timing. Server metrics are off except in bench-server-metrics:
// their sample count and histogram buckets follow the clock, so that invocation masks their values. Token totals
// are kept: every bench asks for fixed lengths (random prompts with ignore_eos, --sharegpt-output-len), so they do
// not hang on the simulator's own answer lengths. test/golden/README.md says the same for people.
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, test } from 'node:test';
import { runCli, startCli, stopCli } from '../helpers/run-cli.js';
import { cleanEnv, scratchDir } from '../loadgen/helpers/bench-cli.js';
import { matchGolden } from './golden-files.js';
import { deterministicValues, keyPaths, maskText } from './normalise.js';

/** Seeded, fast and deterministic in its token counts; no jitter, so no answer outlasts another by chance. */
const SIM_FLAGS = [
  '--seed',
  '7',
  '--ttft-ms',
  '1',
  '--itl-ms',
  '1',
  '--prefill-ms-per-token',
  '0',
  '--jitter',
  '0',
];

/** Small random prompts: every request asks for, and gets (ignore_eos), the same token counts. */
const RANDOM = [
  '--dataset-name',
  'random',
  '--random-input-len',
  '32',
  '--random-output-len',
  '8',
  '--seed',
  '1',
];
const QUIET = ['--disable-tqdm', '--no-server-metrics'];

/**
 * Where a bench that saves no result writes its records: the default name carries the second it started, so two
 * invocations within one second would share it (and the second refuses to write over the first's).
 */
function records(name: string): string[] {
  return ['--records-file', `records/${name}.records.jsonl`];
}

interface Context {
  readonly dir: string;
  readonly sim: string;
  readonly gateway: string;
}

interface Invocation {
  readonly name: string;
  readonly args: (c: Context) => string[];
  /** Its text has nothing that varies (help pages, fixed configs): compared as printed, figures and all. */
  readonly verbatim?: boolean;
  /** An HTML page it writes (relative to the scratch folder): its headings and captions are frozen. */
  readonly html?: string;
  /** A JSON file it writes (relative to the scratch folder), or 'stdout' for JSON it prints; its keys are frozen. */
  readonly json?: string;
}

const INVOCATIONS: Invocation[] = [
  { name: 'sim-help', args: () => ['sim', '--help'], verbatim: true },
  { name: 'serve-help', args: () => ['serve', '--help'], verbatim: true },
  {
    name: 'bench-random',
    args: (c) => ['bench', '--base-url', c.sim, ...RANDOM, '--num-prompts', '8', ...QUIET, ...save('random')],
    json: 'results/random.json',
  },
  {
    name: 'bench-sharegpt',
    // The bundled sample, with the answers cut to 16 tokens: the simulator's own lengths come from its seeded draws
    // in arrival order, which a loaded machine may reorder.
    args: (c) => [
      'bench',
      '--base-url',
      c.sim,
      '--num-prompts',
      '6',
      '--sharegpt-output-len',
      '16',
      ...QUIET,
      ...records('bench-sharegpt'),
    ],
  },
  {
    name: 'bench-max-concurrency',
    args: (c) => [
      'bench',
      '--base-url',
      c.sim,
      ...RANDOM,
      '--num-prompts',
      '8',
      '--max-concurrency',
      '2',
      ...QUIET,
      ...save('concurrency'),
    ],
    json: 'results/concurrency.json',
  },
  {
    name: 'bench-request-rate',
    args: (c) => [
      'bench',
      '--base-url',
      c.sim,
      ...RANDOM,
      '--num-prompts',
      '8',
      '--request-rate',
      '200',
      '--burstiness',
      '0.5',
      ...QUIET,
      ...save('rate'),
    ],
    json: 'results/rate.json',
  },
  {
    name: 'bench-closed-loop',
    args: (c) => [
      'bench',
      '--base-url',
      c.sim,
      ...RANDOM,
      '--num-prompts',
      '8',
      '--engine',
      'closed-loop',
      '--max-concurrency',
      '2',
      ...QUIET,
      ...records('bench-closed-loop'),
    ],
  },
  {
    name: 'bench-multi-turn',
    args: (c) => [
      'bench',
      '--base-url',
      c.sim,
      '--multi-turn',
      '--max-turns',
      '2',
      '--num-prompts',
      '3',
      '--sharegpt-output-len',
      '8',
      ...QUIET,
      ...save('multi-turn'),
    ],
    json: 'results/multi-turn.json',
  },
  {
    name: 'bench-html-detailed',
    args: (c) => [
      'bench',
      '--base-url',
      c.sim,
      ...RANDOM,
      '--num-prompts',
      '4',
      ...QUIET,
      '--save-detailed',
      '--html',
      'html/bench.html',
      ...save('detailed'),
    ],
    json: 'results/detailed.json',
    html: 'html/bench.html',
  },
  {
    name: 'bench-server-metrics',
    args: (c) => [
      'bench',
      '--base-url',
      c.sim,
      ...RANDOM,
      '--num-prompts',
      '4',
      '--disable-tqdm',
      '--server-metrics-interval',
      '0.2',
      ...save('server-metrics'),
    ],
    json: 'results/server-metrics.json',
  },
  {
    name: 'bench-shard-0',
    args: (c) => shard(c, '0/2'),
    json: 'shards/shard-0.json',
  },
  {
    name: 'bench-shard-1',
    args: (c) => shard(c, '1/2'),
    json: 'shards/shard-1.json',
  },
  {
    name: 'merge-shards',
    args: () => [
      'merge',
      'shards',
      '--save-result',
      '--result-dir',
      'merged',
      '--result-filename',
      'merged.json',
    ],
    json: 'merged/merged.json',
  },
  {
    name: 'bench-workers',
    args: (c) => [
      'bench',
      '--base-url',
      c.sim,
      ...RANDOM,
      '--num-prompts',
      '6',
      '--workers',
      '2',
      ...QUIET,
      ...save('workers'),
    ],
    json: 'results/workers.json',
  },
  {
    name: 'bench-budget-stop',
    // One request at a time, 40 tokens each: the budget of 100 is crossed by the third answer, whatever the clock.
    args: (c) => [
      'bench',
      '--base-url',
      c.sim,
      ...RANDOM,
      '--num-prompts',
      '10',
      '--max-concurrency',
      '1',
      '--max-total-tokens',
      '100',
      ...QUIET,
      ...records('bench-budget-stop'),
    ],
  },
  {
    name: 'bench-threshold-pass',
    args: (c) => [
      'bench',
      '--base-url',
      c.sim,
      ...RANDOM,
      '--num-prompts',
      '4',
      '--threshold',
      'success_rate >= 0.9',
      '--threshold',
      'ttft_p99 < 60s',
      ...QUIET,
      ...records('bench-threshold-pass'),
    ],
  },
  {
    name: 'bench-threshold-fail',
    args: (c) => [
      'bench',
      '--base-url',
      c.sim,
      ...RANDOM,
      '--num-prompts',
      '4',
      '--threshold',
      'ttft_p99 < 0.001ms',
      ...QUIET,
      ...records('bench-threshold-fail'),
    ],
  },
  {
    name: 'bench-estimate',
    args: (c) => [
      'bench',
      '--base-url',
      c.sim,
      ...RANDOM,
      '--num-prompts',
      '10',
      '--price-input',
      '1',
      '--price-output',
      '2',
      '--estimate',
    ],
  },
  {
    name: 'bench-via-gateway',
    args: (c) => [
      'bench',
      '--base-url',
      c.gateway,
      ...RANDOM,
      '--num-prompts',
      '5',
      ...QUIET,
      ...records('bench-via-gateway'),
    ],
  },
  {
    name: 'trace-export',
    args: () => ['trace', 'export', 'gateway.records.jsonl', '-o', 'trace.jsonl'],
    json: 'trace.jsonl',
  },
  {
    name: 'sweep-concurrencies',
    args: (c) => [
      'sweep',
      '--base-url',
      c.sim,
      ...RANDOM,
      '--num-prompts',
      '4',
      // Not 1: the sweep's one-at-a-time probe saves its result under the name level 1 would take, in the same
      // second when the server is this fast, and the level then refuses to write over it.
      '--concurrencies',
      '2,4',
      '--level-seconds',
      '0',
      ...QUIET,
      '--result-dir',
      'sweep',
    ],
    json: 'sweep/sweep-summary.json',
  },
  {
    name: 'compare',
    args: () => ['compare', 'results/random.json', 'results/concurrency.json'],
  },
  {
    name: 'compare-json',
    args: () => ['compare', 'results/random.json', 'results/concurrency.json', '--json'],
    json: 'stdout',
  },
  {
    name: 'report',
    args: () => ['report', 'results/detailed.json', '-o', 'html/report.html'],
    html: 'html/report.html',
  },
  { name: 'doctor', args: (c) => ['doctor', '--base-url', c.sim] },
  {
    name: 'print-config-curl',
    args: () => ['print-config', 'curl', '--gateway-url', 'http://127.0.0.1:8080'],
  },
  {
    name: 'print-config-claude-code',
    args: () => ['print-config', 'claude-code', '--gateway-url', 'http://127.0.0.1:8080'],
    verbatim: true,
  },
  // Mistakes: one line and a documented exit code each.
  { name: 'bad-bench-flag', args: (c) => ['bench', '--base-url', c.sim, '--num-promts', '3'] },
  { name: 'bad-bench-value', args: (c) => ['bench', '--base-url', c.sim, '--request-rate', 'fast'] },
  { name: 'bad-compare-missing', args: () => ['compare', 'results/none.json', 'results/random.json'] },
  { name: 'bad-merge-nothing', args: () => ['merge', 'html'] },
  { name: 'bad-trace-no-output', args: () => ['trace', 'export', 'gateway.records.jsonl'] },
  {
    name: 'bad-trace-missing-folder',
    args: () => ['trace', 'export', 'gateway.records.jsonl', '-o', 'no/such/trace.jsonl'],
  },
  { name: 'bad-print-config-client', args: () => ['print-config', 'vim'] },
];

function save(name: string): string[] {
  return ['--save-result', '--result-dir', 'results', '--result-filename', `${name}.json`];
}

function shard(c: Context, which: string): string[] {
  const index = which.split('/')[0] as string;
  return [
    'bench',
    '--base-url',
    c.sim,
    ...RANDOM,
    '--num-prompts',
    '6',
    '--shard',
    which,
    ...QUIET,
    '--save-result',
    '--result-dir',
    'shards',
    '--result-filename',
    `shard-${index}.json`,
  ];
}

let context: Context;
let stopAll: () => Promise<void>;

before(async () => {
  const dir = scratchDir();
  const sim = await startCli(['sim', '--port', '0', ...SIM_FLAGS], /listening on (http:\/\/\S+)/, cleanEnv());
  const gateway = await startCli(
    [
      'serve',
      '--upstream',
      sim.match[1] as string,
      '--port',
      '0',
      '--records',
      join(dir, 'gateway.records.jsonl'),
      '--record-bodies',
      '--log-level',
      'silent',
    ],
    /listening on (http:\/\/\S+?)(?:\/v1)?\s/,
    cleanEnv(),
  ).catch(async (error: unknown) => {
    await stopCli(sim.child);
    throw error;
  });
  context = { dir, sim: sim.match[1] as string, gateway: gateway.match[1] as string };
  stopAll = async () => {
    await stopCli(gateway.child);
    await stopCli(sim.child);
  };
});

after(async () => {
  await stopAll?.();
});

for (const invocation of INVOCATIONS) {
  test(`golden: tokenmeter ${invocation.name}`, { timeout: 120_000 }, async () => {
    const before = new Set(filesUnder(context.dir));
    const args = invocation.args(context);
    const result = await runCli(args, cleanEnv({ NO_COLOR: '1' }), context.dir);
    const written = filesUnder(context.dir).filter((file) => !before.has(file));
    const mask = {
      paths: [context.dir, tmpdir()],
      hostname: hostname(),
      verbatim: invocation.verbatim === true,
    };
    const text = [
      `$ tokenmeter ${maskText(args.join(' '), mask)}`,
      `exit: ${result.code}`,
      '--- stdout',
      // JSON on stdout is frozen by its keys; its figures, masked as text, would still vary in sign and form.
      invocation.json === 'stdout'
        ? `(JSON: test/golden/expected/${invocation.name}.keys.json)`
        : maskText(result.stdout, mask),
      '--- stderr',
      maskText(result.stderr, mask),
      '--- files written',
      ...written.map((file) => maskText(file, mask)).sort(),
      '',
    ].join('\n');
    const goldens: Array<[string, string]> = [[`${invocation.name}.txt`, text]];
    if (invocation.json !== undefined) {
      const source =
        invocation.json === 'stdout'
          ? result.stdout
          : readFileSync(join(context.dir, invocation.json), 'utf8');
      goldens.push([`${invocation.name}.keys.json`, `${JSON.stringify(jsonShape(source), null, 2)}\n`]);
    }
    if (invocation.html !== undefined) {
      const page = readFileSync(join(context.dir, invocation.html), 'utf8');
      goldens.push([`${invocation.name}.html.txt`, `${maskText(pageOutline(page), mask)}\n`]);
    }
    // The files are compared before failing, so one run shows a changed text and a changed key set together.
    const differences: string[] = [];
    for (const [name, actual] of goldens) {
      try {
        matchGolden(name, actual);
      } catch (error) {
        differences.push((error as Error).message);
      }
    }
    if (differences.length > 0) assert.fail(differences.join('\n\n'));
  });
}

/**
 * An HTML page's outline: its headings and the captions of its tables and charts, one a line, in page order.
 * Which sections and charts a page has is its structure; what the charts draw follows the clock.
 */
function pageOutline(page: string): string {
  const outline = [...page.matchAll(/<(h[1-4]|caption|figcaption)\b[^>]*>([^<]*)/g)].map(
    (match) => `${match[1]}: ${(match[2] as string).trim()}`,
  );
  return outline.join('\n');
}

/** Key paths and deterministic values of a JSON document, or of every line of a JSON-lines file together. */
function jsonShape(source: string): { keys: string[]; values: Record<string, unknown> } {
  const trimmed = source.trim();
  const value: unknown =
    trimmed.startsWith('{') && !trimmed.includes('\n{')
      ? JSON.parse(trimmed)
      : trimmed.split('\n').map((line) => JSON.parse(line) as unknown);
  return { keys: keyPaths(value), values: deterministicValues(value) };
}

/** Files under `dir`, relative to it, leaving out the gateway's records (written by every request through it). */
function filesUnder(dir: string): string[] {
  mkdirSync(dir, { recursive: true });
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((path) => statSync(join(dir, path)).isFile())
    .map((path) => relative(dir, join(dir, path)))
    .filter((path) => !path.startsWith('gateway.records'));
}
