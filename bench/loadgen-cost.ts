// What the load generator itself costs, side by side in one run with the least a streaming client can do
// (helpers/bare-stream-client.ts: undici, read and drop): the same requests (streamed chat, 64 prompt words, 64
// output tokens with ignore_eos) against the same simulator (2 ms between tokens), at the same concurrency, rounds
// alternated. Reported per client: user + system CPU and peak RSS of its whole process (GNU time's %U, %S and %M,
// so nothing runs inside the process measured), and the ratio of `tokenmeter bench` to the bare client.
//
//   npm run build && node dist/bench/loadgen-cost.js [--requests 1000] [--concurrency 64] [--rounds 3]
//
// Both clients are separate processes started the same way (node, then the script), so Node's own start-up is in
// both figures alike. bench runs with its defaults otherwise (records written to a temporary folder, the
// progress line off, the server's /metrics read every second), as a user runs it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { spawnSimulator } from './helpers/spawn-simulator.js';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '1000' },
    concurrency: { type: 'string', default: '64' },
    rounds: { type: 'string', default: '3' },
  },
});
const CLI = fileURLToPath(new URL('../../bin/tokenmeter.js', import.meta.url));
const BARE = fileURLToPath(new URL('./helpers/bare-stream-client.js', import.meta.url));

interface Usage {
  readonly cpuS: number;
  readonly rssMb: number;
  readonly wallS: number;
}

/** Runs `args` under GNU time; its last stderr line is "user system maxrss-kB elapsed". */
function measured(args: string[]): Usage {
  const run = spawnSync('/usr/bin/time', ['-f', 'TIME %U %S %M %e', process.execPath, ...args], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const line = /TIME (\S+) (\S+) (\S+) (\S+)\s*$/.exec(run.stderr);
  if (run.status !== 0 || line === null)
    throw new Error(`${args.join(' ')} failed: ${run.stderr.slice(-2000)}`);
  const [, user, system, maxKb, elapsed] = line.map(Number) as [number, number, number, number, number];
  return { cpuS: user + system, rssMb: maxKb / 1024, wallS: elapsed };
}

const sim = await spawnSimulator(['--itl-ms', '2', '--ttft-ms', '10', '--max-num-seqs', '256']);
const folder = mkdtempSync(join(tmpdir(), 'tokenmeter-loadgen-cost-'));
try {
  const bench = (round: number): Usage =>
    measured([
      CLI,
      'bench',
      '--base-url',
      sim.url,
      '--model',
      'tokenmeter/sim-7b',
      '--dataset-name',
      'random',
      '--random-input-len',
      '64',
      '--random-output-len',
      '64',
      '--ignore-eos',
      '--num-prompts',
      values.requests,
      '--max-concurrency',
      values.concurrency,
      '--disable-tqdm',
      '--records-file',
      join(folder, `round${round}.records.jsonl`),
    ]);
  const bare = (): Usage =>
    measured([BARE, '--url', sim.url, '--requests', values.requests, '--concurrency', values.concurrency]);
  const rows: { bench: Usage; bare: Usage }[] = [];
  for (let round = 0; round < Number(values.rounds); round++) {
    // Alternated, and the order flipped every round, so a noisy neighbour hits both sides alike.
    if (round % 2 === 0) rows.push({ bench: bench(round), bare: bare() });
    else {
      const b = bare();
      rows.push({ bench: bench(round), bare: b });
    }
  }
  const sum = (pick: (r: (typeof rows)[number]) => number): number => rows.reduce((s, r) => s + pick(r), 0);
  const max = (pick: (r: (typeof rows)[number]) => number): number => Math.max(...rows.map(pick));
  console.log(
    `${values.requests} requests at concurrency ${values.concurrency}, ${rows.length} rounds alternated`,
  );
  console.log('round  bench CPU s  bare CPU s  ratio  bench RSS MB  bare RSS MB  ratio');
  for (const [i, r] of rows.entries()) {
    console.log(
      `${String(i + 1).padStart(5)}  ${r.bench.cpuS.toFixed(2).padStart(11)}  ${r.bare.cpuS.toFixed(2).padStart(10)}  ` +
        `${(r.bench.cpuS / r.bare.cpuS).toFixed(2).padStart(5)}  ${r.bench.rssMb.toFixed(0).padStart(12)}  ` +
        `${r.bare.rssMb.toFixed(0).padStart(11)}  ${(r.bench.rssMb / r.bare.rssMb).toFixed(2).padStart(5)}`,
    );
  }
  console.log(
    `total  CPU ratio ${(sum((r) => r.bench.cpuS) / sum((r) => r.bare.cpuS)).toFixed(2)}, ` +
      `peak RSS ratio ${(max((r) => r.bench.rssMb) / max((r) => r.bare.rssMb)).toFixed(2)}`,
  );
} finally {
  sim.process.kill();
  rmSync(folder, { recursive: true, force: true });
}
