// The commands of docs/loadgen.md's "Choosing a workload" section run as written: each `sh` block, in order and in one
// scratch folder (so the trace a block exports is the file the next replays), through the real CLI. What is
// adapted keeps the runs to a few seconds and off fixed ports, nothing else: every simulator and gateway listens
// on port 0 and `--base-url`/`--upstream` point at it, a simulator decodes at 1 ms a token unless the page sets
// --itl-ms, and `--num-prompts` is cut to MAX_PROMPTS. The page's "a day of traffic" is a short bench run through
// the gateway it starts.
import assert from 'node:assert/strict';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { codeBlocks, docSection, type ShellCommand, shellCommands } from '../helpers/doc-code-blocks.js';
import { runCli, startCli, stopCli } from '../helpers/run-cli.js';
import { cleanEnv, scratchDir } from './helpers/bench-cli.js';

const DOC = readFileSync(new URL('../../../docs/loadgen.md', import.meta.url), 'utf8');
const MAX_PROMPTS = 8;
/** Every workload the issue names has its command in the section. */
const WORKLOAD_FLAGS = [
  '--reasoning-tokens',
  '--multi-turn',
  'prefix_repetition',
  '--shared-system-prompt-length',
  'mooncake',
  'timed_trace',
  '--request-cancellation-rate',
];

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

function adaptedBench(argv: readonly string[], target: string): string[] {
  let adapted = withFlag(argv, '--base-url', target);
  const at = adapted.indexOf('--num-prompts');
  if (at >= 0)
    adapted = withFlag(adapted, '--num-prompts', String(Math.min(Number(adapted[at + 1]), MAX_PROMPTS)));
  return adapted;
}

let sim: { child: ChildProcessWithoutNullStreams; url: string } | undefined;
let gateway: { child: ChildProcessWithoutNullStreams; url: string; records: string } | undefined;

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
  const started = await startCli(adapted, /listening on (http:\/\/[^\s/]+:\d+)\/v1/, env, dir);
  running.push(started.child);
  const records = adapted[adapted.indexOf('--records') + 1] as string;
  gateway = { child: started.child, url: started.match[1] as string, records };
  const traffic = await runCli(
    [
      'bench',
      '--base-url',
      gateway.url,
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

async function run(command: ShellCommand): Promise<void> {
  const [name] = command.argv;
  if (name === 'sim') return startSim(command.argv);
  if (name === 'serve') return startGatewayWithTraffic(command.argv);
  assert.ok(!command.background, `${command.text}: only sim and serve are left running`);
  let argv = command.argv;
  if (name === 'bench') {
    assert.ok(sim !== undefined, `${command.text}: its block starts a simulator first`);
    argv = adaptedBench(argv, sim.url);
  }
  const result = await runCli(argv, env, dir);
  assert.equal(result.code, 0, `${command.text}\n(ran as: tokenmeter ${argv.join(' ')})\n${result.stderr}`);
  if (name === 'bench') assert.match(result.stdout, /Serving Benchmark Result/, command.text);
  if (name === 'trace')
    assert.ok(existsSync(join(dir, argv[argv.indexOf('-o') + 1] as string)), command.text);
}

test("every command of docs/loadgen.md's 'Choosing a workload' section runs against the simulator", async () => {
  const blocks = codeBlocks(docSection(DOC, '## Choosing a workload'), 'sh');
  const commands = blocks.flatMap((block) => shellCommands(block, 'tokenmeter'));
  const all = commands.map((c) => c.text).join('\n');
  for (const flag of WORKLOAD_FLAGS) assert.ok(all.includes(flag), `the section has a command with ${flag}`);
  for (const block of blocks) {
    for (const command of shellCommands(block, 'tokenmeter')) await run(command);
  }
  assert.ok(gateway !== undefined, 'the traces block starts a gateway');
});
