// Test helper: runs the shell examples of some sections of docs/loadgen.md, the load generator's guide, as written:
// each `sh` block in page order, in one scratch folder per test file (so the trace one block exports is the file a
// later one replays), through the real CLI against the simulator. A block marked `<!-- not run: why -->` above its
// fence needs your own server or several machines: its test is skipped with that reason. One marked
// `<!-- exits N: why -->` must end with status N and runs uncut (it is written to end by itself). What is adapted
// keeps the runs short and off fixed ports, nothing else: every simulator and gateway listens on port 0 and
// `--base-url`/`--upstream` point at it, a simulator decodes at 1 ms a token unless the page sets --itl-ms,
// `--num-prompts` is cut to MAX_PROMPTS (a sweep's default of 100 too) and a sweep level to MAX_LEVEL_SECONDS. The page's "a day of traffic" is a
// short bench run through the gateway it starts. The guide's sections are split over a few test files so that each
// stays within the runner's per-file limit on this 2-core box.
import assert from 'node:assert/strict';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import {
  type MarkedBlock,
  markedBlocks,
  type ShellCommand,
  shellCommands,
} from '../../helpers/doc-code-blocks.js';
import { runCli, startCli, stopCli } from '../../helpers/run-cli.js';
import { cleanEnv, scratchDir } from '../../loadgen/helpers/bench-cli.js';

const DOC = readFileSync(new URL('../../../../docs/loadgen.md', import.meta.url), 'utf8');
const MAX_PROMPTS = 8;
const MAX_LEVEL_SECONDS = 1;
/**
 * The guide's `##` sections in the test file that runs their examples; every section with an `sh` block is in one
 * (the first file checks it), so a new section's examples cannot go untested.
 */
export const SECTION_GROUPS = {
  firstRuns: [
    '## First run',
    '## Reading the report',
    '## Rates and concurrency',
    "## Why it slowed: the server's metrics and its GPUs",
  ],
  workloads: ['## Choosing a workload'],
  capacity: ['## Sweeps and capacity', '## Comparing runs', '## Sharded runs: several processes or machines'],
} as const;

const dir = scratchDir();
const env = cleanEnv();
const running: ChildProcessWithoutNullStreams[] = [];
after(async () => {
  for (const child of running) await stopCli(child);
});

/** `--flag value` replaced (or added when absent). */
function withFlag(argv: readonly string[], flag: string, value: string): string[] {
  const at = argv.indexOf(flag);
  return at < 0 ? [...argv, flag, value] : argv.map((word, i) => (i === at + 1 ? value : word));
}

/** `--flag N` lowered to `max` when the command gives more (or `added` when it gives none and `added` is set). */
function capped(argv: readonly string[], flag: string, max: number, added?: number): string[] {
  const at = argv.indexOf(flag);
  if (at < 0) return added === undefined ? [...argv] : [...argv, flag, String(added)];
  return withFlag(argv, flag, String(Math.min(Number(argv[at + 1]), max)));
}

function adaptedLoad(argv: readonly string[], target: string, uncut: boolean): string[] {
  let adapted = withFlag(argv, '--base-url', target);
  if (uncut) return adapted;
  // A sweep's levels run at least --num-prompts requests each, 100 when the page gives none: cut that too.
  const sweep = adapted[0] === 'sweep';
  adapted = capped(adapted, '--num-prompts', MAX_PROMPTS, sweep ? MAX_PROMPTS : undefined);
  if (sweep) adapted = capped(adapted, '--level-seconds', MAX_LEVEL_SECONDS, MAX_LEVEL_SECONDS);
  return adapted;
}

let sim: { child: ChildProcessWithoutNullStreams; url: string } | undefined;

async function startSim(argv: readonly string[]): Promise<void> {
  if (sim !== undefined) await stopCli(sim.child);
  const adapted = withFlag(argv.includes('--itl-ms') ? argv : [...argv, '--itl-ms', '1'], '--port', '0');
  const started = await startCli(adapted, /listening on (http:\/\/\S+)/, env, dir);
  running.push(started.child);
  sim = { child: started.child, url: started.match[1] as string };
}

/** The gateway the page starts, then the traffic the page leaves to the reader ("a day of traffic"). */
async function startGatewayWithTraffic(argv: readonly string[]): Promise<void> {
  assert.ok(sim !== undefined, 'the block starts a simulator before its gateway');
  const adapted = withFlag(withFlag(argv, '--upstream', `${sim.url}/v1`), '--port', '0');
  const gateway = await startCli(adapted, /listening on (http:\/\/[^\s/]+:\d+)\/v1/, env, dir);
  running.push(gateway.child);
  const traffic = await runCli(
    [
      'bench',
      '--base-url',
      gateway.match[1] as string,
      '--model',
      'tokenmeter/sim-7b',
      '--num-prompts',
      '6',
      '--no-records',
    ],
    env,
    dir,
  );
  assert.equal(traffic.code, 0, traffic.stderr);
  // Stopped, not left running: a stopped gateway has written every record, so the export reads all six.
  await stopCli(gateway.child);
}

async function run(command: ShellCommand, expectedCode: number): Promise<void> {
  const [name] = command.argv;
  if (name === 'sim') return startSim(command.argv);
  if (name === 'serve') return startGatewayWithTraffic(command.argv);
  assert.ok(!command.background, `${command.text}: only sim and serve are left running`);
  let argv = command.argv;
  const load = name === 'bench' || name === 'sweep';
  if (load) {
    assert.ok(sim !== undefined, `${command.text}: its block starts a simulator first`);
    argv = adaptedLoad(argv, sim.url, expectedCode !== 0);
  }
  const result = await runCli(argv, env, dir);
  const ranAs = `${command.text}\n(ran as: tokenmeter ${argv.join(' ')})\n${result.stderr}`;
  assert.equal(result.code, load ? expectedCode : 0, ranAs);
  if (name === 'bench') assert.match(result.stdout, /Serving Benchmark Result/, ranAs);
  const output = argv.indexOf('-o');
  if (name === 'trace' && output >= 0) assert.ok(existsSync(join(dir, argv[output + 1] as string)), ranAs);
}

/** The guide's `sh` blocks, each with the `##` section it is under. */
export function guideBlocks(): { block: MarkedBlock; section: string }[] {
  const lines = DOC.split('\n');
  const headingAt: { line: number; heading: string }[] = [];
  let fenced = false;
  lines.forEach((line, i) => {
    if (line.startsWith('```')) fenced = !fenced;
    if (!fenced && line.startsWith('## ')) headingAt.push({ line: i + 1, heading: line });
  });
  return markedBlocks(DOC, 'sh').map((block) => ({
    block,
    section: headingAt.filter((h) => h.line < block.line).at(-1)?.heading ?? '(before any section)',
  }));
}

/** One test per `sh` block under these sections, in page order. */
export function testGuideSections(sections: readonly string[]): void {
  const blocks = guideBlocks().filter(({ section }) => sections.includes(section));
  test(`docs/loadgen.md has examples under ${sections.join(', ')}`, () => {
    assert.ok(blocks.length > 0);
  });
  for (const { block } of blocks) {
    const commands = shellCommands(block.text, 'tokenmeter');
    const first = commands.find((c) => c.argv[0] !== 'sim') ?? commands[0];
    const name = `docs/loadgen.md line ${block.line}: tokenmeter ${first?.argv.slice(0, 3).join(' ') ?? ''}`;
    const notRun = /^not run: (.+)$/.exec(block.note ?? '')?.[1];
    const expectedCode = Number(/^exits (\d+):/.exec(block.note ?? '')?.[1] ?? 0);
    test(name, notRun === undefined ? {} : { skip: `not run: ${notRun}` }, async () => {
      for (const command of commands) await run(command, expectedCode);
    });
  }
}

export { DOC as GUIDE };
