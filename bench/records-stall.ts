// Does a records file that stalls delay the load generator's chunk stamps? The same `tokenmeter bench` run (the
// real CLI, a child process) three ways, rounds alternated in one run: no records (--no-records), records to a
// regular file, and records to a FIFO that is held open and never read (the pipe fills at 64 KiB and stays full,
// as a hung disk). The simulator (its own process) emits every token exactly --itl-ms apart, so each measured
// inter-token gap minus the configured gap is how late its chunk was stamped (plus the simulator's own emission
// lateness, the same in every mode; a negative figure is a gap shorter than configured: two chunks read in one
// turn of the loop). Prints, per mode, that lateness's p50/p99/max over all gaps of all rounds, TTFT p99, and the
// records each round lost (the FIFO stays full from round to round, so later rounds lose all of theirs).
//
//   npm run build && node dist/bench/records-stall.js [--rounds 3] [--prompts 400] [--concurrency 64] [--itl-ms 2]
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { percentile } from '../loadgen/metrics/numpy-stats.js';
import { spawnSimulator } from './helpers/spawn-simulator.js';

const CLI = fileURLToPath(new URL('../../bin/tokenmeter.js', import.meta.url));
const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    prompts: { type: 'string', default: '400' },
    concurrency: { type: 'string', default: '64' },
    'itl-ms': { type: 'string', default: '2' },
  },
});
const itlMs = Number(values['itl-ms']);
const { url, process: sim } = await spawnSimulator([
  '--max-num-seqs',
  '100000',
  '--batch-slowdown',
  '0',
  '--jitter',
  '0',
  '--ttft-ms',
  '5',
  '--prefill-ms-per-token',
  '0',
  '--itl-ms',
  String(itlMs),
]);

type Mode = 'none' | 'file' | 'fifo';
const MODES: readonly Mode[] = ['none', 'file', 'fifo'];
const folder = mkdtempSync(join(tmpdir(), 'tokenmeter-records-stall-'));
const fifo = join(folder, 'records.fifo');
execFileSync('mkfifo', [fifo]);
// Held open, never read: a writer's open succeeds and the pipe stays full once filled.
const heldReader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);

interface Saved {
  completed: number;
  itls: number[][];
  ttfts: number[];
  tokenmeter: { records_lost?: number };
}

function runBench(mode: Mode, round: number): Promise<Saved> {
  const name = `${mode}-${round}.json`;
  const records =
    mode === 'none'
      ? ['--no-records']
      : ['--records-file', mode === 'fifo' ? fifo : join(folder, `${name}.jsonl`)];
  const args = [
    CLI,
    'bench',
    '--base-url',
    url,
    '--dataset-name',
    'random',
    '--random-input-len',
    '16',
    '--random-output-len',
    '100',
    '--ignore-eos',
    '--num-prompts',
    values.prompts,
    '--request-rate',
    'inf',
    '--max-concurrency',
    values.concurrency,
    '--disable-tqdm',
    '--save-detailed',
    '--result-dir',
    folder,
    '--result-filename',
    name,
    ...records,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args);
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`bench (${mode}) exited ${code}: ${out.slice(-2000)}`));
      resolve(JSON.parse(readFileSync(join(folder, name), 'utf8')) as Saved);
    });
  });
}

const gaps = new Map<Mode, number[]>(MODES.map((m) => [m, []]));
const ttfts = new Map<Mode, number[]>(MODES.map((m) => [m, []]));
const lost = new Map<Mode, number[]>(MODES.map((m) => [m, []]));
try {
  for (let round = 0; round < Number(values.rounds); round++) {
    // Alternate the order each round so no mode always runs first (warm-up) or last.
    const order = round % 2 === 0 ? MODES : [...MODES].reverse();
    for (const mode of order) {
      const saved = await runBench(mode, round);
      // vLLM's itls are seconds; lateness in ms against the configured gap.
      for (const request of saved.itls) for (const gap of request) gaps.get(mode)?.push(gap * 1000 - itlMs);
      for (const ttft of saved.ttfts) ttfts.get(mode)?.push(ttft * 1000);
      lost.get(mode)?.push(saved.tokenmeter.records_lost ?? 0);
      process.stderr.write(`round ${round + 1} ${mode}: ${saved.completed} completed\n`);
    }
  }
  const f = (n: number): string => n.toFixed(3).padStart(9);
  console.log(
    `records stall: ${values.rounds} rounds x ${values.prompts} prompts, c=${values.concurrency}, ${itlMs} ms per token`,
  );
  console.log('mode   gaps     late p50  late p99  late max  TTFT p99  records lost per round');
  for (const mode of MODES) {
    const late = gaps.get(mode) ?? [];
    console.log(
      `${mode.padEnd(5)} ${String(late.length).padStart(6)} ${f(percentile(late, 50))} ${f(percentile(late, 99))} ${f(Math.max(...late))} ${f(percentile(ttfts.get(mode) ?? [], 99))}  ${mode === 'none' ? '-' : (lost.get(mode) ?? []).join(', ')}`,
    );
  }
} finally {
  closeSync(heldReader);
  sim.kill();
  rmSync(folder, { recursive: true, force: true });
}
