// How far do PromQL's percentiles from the gateway's histograms land from the exact ones? Replays recorded
// traffic (a gateway records file with gaps) into prom-client histograms with the gateway's buckets, computes
// histogram_quantile as Prometheus does (src/shared/prometheus-text.ts) and the exact percentile of the
// same values, for TTFT, TTFB, TPOT, inter-token gaps and E2E, with the gateway's buckets and with the 1-2.5-5
// ladder they replaced. Then the same error for synthetic log-normal spreads swept across each ladder's range.
// Not part of `npm test`. Run from the repository root:
//
//   npm run build && node dist/bench/histogram-error.js [--records FILE] [--prompts 400] [--rate 8] [--seed 1]
//
// Without --records, it records its own traffic: the simulator (`tokenmeter sim`, default timing: TTFT 30 ms
// plus prefill, 15 ms between tokens with 10% jitter, slower as batches fill) behind the gateway
// (`tokenmeter serve --records FILE --record-gaps`), loaded by `tokenmeter bench` with random prompts of
// 50-500 tokens and answers of 20-200 tokens, Poisson arrivals. Prints markdown tables (docs/metrics.md,
// "Buckets"); exits 1 if a recorded p50 or p99 with the gateway's buckets is more than 10% off.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parseRecordLines, type RecordObject } from '../src/measure/record-lines.js';
import {
  FIRST_TOKEN_BUCKETS_S,
  PER_TOKEN_BUCKETS_S,
  REQUEST_BUCKETS_S,
} from '../src/shared/latency-buckets.js';
import { type QuantileError, quantileErrors, worstErrorAcrossRange } from './helpers/quantile-error.js';
import { spawnGateway } from './helpers/spawn-gateway.js';
import { spawnSimulator } from './helpers/spawn-simulator.js';

const CLI = fileURLToPath(new URL('../../bin/tokenmeter.js', import.meta.url));
const BOUND = 0.1;
/** The 1-2.5-5 ladder every latency histogram had before these buckets, for comparison. */
const PREVIOUS_BUCKETS_S = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 50,
  100, 250, 500, 1000,
];
const SPREADS = [0.02, 0.05, 0.1, 0.25, 0.5, 1];

const { values: args } = parseArgs({
  options: {
    records: { type: 'string' },
    prompts: { type: 'string', default: '400' },
    rate: { type: 'string', default: '8' },
    seed: { type: 'string', default: '1' },
  },
});

/** One histogram: what the gateway observes for it from a record, and its buckets. */
interface Metric {
  readonly name: string;
  readonly bounds: readonly number[];
  readonly samplesMs: (record: RecordObject) => readonly number[];
}

const single =
  (field: string) =>
  (record: RecordObject): number[] =>
    typeof record[field] === 'number' ? [record[field] as number] : [];

// As GatewayMetrics.observe reads a record: every record has an E2E, the others only when measured.
const METRICS: readonly Metric[] = [
  { name: 'TTFT', bounds: FIRST_TOKEN_BUCKETS_S, samplesMs: single('ttftMs') },
  { name: 'TTFB', bounds: FIRST_TOKEN_BUCKETS_S, samplesMs: single('ttfbMs') },
  { name: 'TPOT', bounds: PER_TOKEN_BUCKETS_S, samplesMs: single('tpotMs') },
  {
    name: 'inter-token gap',
    bounds: PER_TOKEN_BUCKETS_S,
    samplesMs: (r) => (Array.isArray(r['itlMs']) ? (r['itlMs'] as number[]) : []),
  },
  { name: 'E2E', bounds: REQUEST_BUCKETS_S, samplesMs: single('e2eMs') },
];

async function recordOwnTraffic(dir: string): Promise<string> {
  const recordsFile = join(dir, 'gateway.jsonl');
  const sim = await spawnSimulator(['--seed', String(args.seed)]);
  const gateway = await spawnGateway(
    ['--upstream', `${sim.url}/v1`, '--upstream-name', 'sim', '--records', recordsFile, '--record-gaps'],
    join(dir, 'gateway.log'),
  );
  try {
    const bench = spawn(
      process.execPath,
      [
        CLI,
        'bench',
        '--backend',
        'openai-chat',
        '--base-url',
        gateway.url,
        '--dataset-name',
        'random',
        '--random-input-len',
        '275',
        '--random-output-len',
        '110',
        '--random-range-ratio',
        '0.82',
        '--ignore-eos',
        '--num-prompts',
        String(args.prompts),
        '--request-rate',
        String(args.rate),
        '--seed',
        String(args.seed),
        '--result-dir',
        dir,
        '--disable-tqdm',
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    const code = await new Promise<number | null>((resolve) => bench.once('exit', resolve));
    if (code !== 0) throw new Error(`tokenmeter bench exited with ${code}`);
  } finally {
    gateway.process.kill('SIGTERM');
    await gateway.exited;
    sim.process.kill('SIGTERM');
  }
  return recordsFile;
}

const percent = (error: QuantileError): string => `${(error.relativeError * 100).toFixed(1)}%`;
const ms = (seconds: number): string => (seconds * 1000).toPrecision(4);

const dir = await mkdtemp(join(tmpdir(), 'tokenmeter-histogram-error-'));
try {
  const recordsFile = args.records ?? (await recordOwnTraffic(dir));
  const { records, malformed } = parseRecordLines(await readFile(recordsFile, 'utf8'));
  console.log(`${records.length} records${malformed > 0 ? ` (${malformed} malformed lines skipped)` : ''}\n`);
  console.log(
    '| metric | samples | exact p50 (ms) | PromQL p50 (ms) | error | exact p99 (ms) | PromQL p99 (ms) | error | error with the 1-2.5-5 buckets (p50, p99) |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  let worst = 0;
  for (const metric of METRICS) {
    const seconds = records.flatMap(metric.samplesMs).map((v) => v / 1000);
    if (seconds.length === 0) {
      console.log(`| ${metric.name} | 0 | | | | | | | |`);
      continue;
    }
    const [p50, p99] = (await quantileErrors(metric.bounds, seconds)) as [QuantileError, QuantileError];
    const [old50, old99] = (await quantileErrors(PREVIOUS_BUCKETS_S, seconds)) as [
      QuantileError,
      QuantileError,
    ];
    worst = Math.max(worst, p50.relativeError, p99.relativeError);
    console.log(
      `| ${metric.name} | ${seconds.length} | ${ms(p50.exact)} | ${ms(p50.promql)} | ${percent(p50)} | ${ms(p99.exact)} | ${ms(p99.promql)} | ${percent(p99)} | ${percent(old50)}, ${percent(old99)} |`,
    );
  }

  console.log(
    '\nworst error over log-normal spreads swept across each range (2,000 samples, a median every 1/7 decade)',
  );
  console.log(`| buckets | ${SPREADS.map((s) => `sigma ${s} (p50, p99)`).join(' | ')} |`);
  console.log(`| --- |${SPREADS.map(() => ' --- |').join('')}`);
  const ladders: [string, readonly number[]][] = [
    ['TPOT, gaps (0.1 ms-10 s)', PER_TOKEN_BUCKETS_S],
    ['TTFT, TTFB (1 ms-1000 s)', FIRST_TOKEN_BUCKETS_S],
    ['E2E (10 ms-10,000 s)', REQUEST_BUCKETS_S],
    ['previous 1-2.5-5 (0.1 ms-1000 s)', PREVIOUS_BUCKETS_S],
  ];
  for (const [name, bounds] of ladders) {
    const cells: string[] = [];
    for (const sigma of SPREADS) {
      const errors = await worstErrorAcrossRange(bounds, sigma);
      cells.push(errors.map((e) => `${(e.relativeError * 100).toFixed(1)}%`).join(', '));
    }
    console.log(`| ${name} | ${cells.join(' | ')} |`);
  }
  if (worst > BOUND) {
    console.log(`\nFAIL: a recorded percentile is ${(worst * 100).toFixed(1)}% off (bound ${BOUND * 100}%)`);
    process.exitCode = 1;
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
