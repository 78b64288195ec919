// The three coding agents the article configures (Claude Code, Codex, Cline), installed from npm outside the
// project, each run once non-interactively through the gateway against the simulator with the settings
// `print-config` prints: the simulator calls one of the agent's own tools on every turn until the conversation
// holds two tool turns, so each run is a loop of at least three requests, all of which must land in one session
// with turns 0, 1, 2, ... and the tool calls and results counted. Each agent runs in an empty temporary folder
// with an isolated HOME (no user settings, no credentials beyond a dummy key) and its default permission mode
// (Cline's default auto-approves, so it is told not to): the simulator's tool arguments are synthetic.
//
// The agents are not dependencies of the project: set TOKENMETER_AGENT_PREFIX to an npm prefix holding them
// (docs/clients.md, "Agents against the simulator"); without it each test skips and says so.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { after, before, type TestContext, test } from 'node:test';
import { CLIENT_SNIPPETS } from '../../src/client-config/client-snippets.js';
import type { RequestRecord } from '../../src/gateway/records/record.js';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { startGateway, type TestGateway } from '../gateway/helpers/gateway.js';

const PREFIX = process.env['TOKENMETER_AGENT_PREFIX'];
const MODEL = 'tokenmeter/sim-7b';
const KEY_ENV = 'TOKENMETER_API_KEY';
const DUMMY_KEY = 'dummy';
const TOOL_TURNS = 2;
/** Runs here took 0.7 to 11 s on a 2-core machine shared with other work (Cline slowest); a hung agent is killed. */
const AGENT_DEADLINE_MS = 120_000;
const PROMPT = 'List the files in this folder.';

interface Agent {
  readonly name: string;
  readonly pkg: string;
  readonly bin: string;
  readonly path: string;
  readonly sessionSource: string;
  /** Writes the agent's settings under `home`; returns the extra environment its run needs. */
  configure(home: string, gatewayUrl: string): Promise<NodeJS.ProcessEnv>;
  readonly args: readonly string[];
  /** Stops what the agent leaves running after it exits. */
  cleanUp?(home: string, env: NodeJS.ProcessEnv): Promise<void>;
}

const AGENTS: readonly Agent[] = [
  {
    name: 'Claude Code',
    pkg: '@anthropic-ai/claude-code',
    bin: 'claude',
    path: '/v1/messages',
    sessionSource: 'claude-code-header',
    async configure(home, gatewayUrl) {
      const settings = JSON.parse(snippet('claude-code', gatewayUrl)) as { env: Record<string, string> };
      settings.env['ANTHROPIC_API_KEY'] = DUMMY_KEY;
      await mkdir(join(home, '.claude'));
      await writeFile(join(home, '.claude', 'settings.json'), JSON.stringify(settings));
      return {
        DISABLE_TELEMETRY: '1',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_AUTOUPDATER: '1',
      };
    },
    args: ['-p', PROMPT],
  },
  {
    name: 'Codex',
    pkg: '@openai/codex',
    bin: 'codex',
    path: '/v1/responses',
    sessionSource: 'codex-header',
    async configure(home, gatewayUrl) {
      await mkdir(join(home, '.codex'));
      await writeFile(join(home, '.codex', 'config.toml'), `${snippet('codex', gatewayUrl)}\n`);
      return { [KEY_ENV]: DUMMY_KEY };
    },
    args: ['exec', '--skip-git-repo-check', PROMPT],
  },
  {
    name: 'Cline',
    pkg: 'cline',
    bin: 'cline',
    path: '/v1/chat/completions',
    sessionSource: 'prefix',
    async configure(home, gatewayUrl) {
      const settings = JSON.parse(snippet('cline', gatewayUrl)) as Record<string, string>;
      // Its hub daemon outlives the run: on a port of its own it meets no other Cline on this machine.
      const env = { ...baseEnv(home), CLINE_HUB_PORT: String(await freePort()) };
      const auth = [
        'auth',
        '-p',
        'openai-compatible',
        '-k',
        DUMMY_KEY,
        '-m',
        MODEL,
        '-b',
        settings['baseUrl'] ?? '',
      ];
      const res = await runAgent(agentBin('cline'), auth, home, env, 30_000);
      assert.equal(res.code, 0, `cline auth: ${res.output}`);
      return env;
    },
    args: ['--auto-approve', 'false', '-t', '100', PROMPT],
    async cleanUp(home, env) {
      const lock = join(home, '.cline', 'data', 'locks', 'hub', 'production.json');
      const pid = existsSync(lock)
        ? (JSON.parse(await readFile(lock, 'utf8')) as { pid?: number }).pid
        : undefined;
      // `hub stop` (not in its --help) answers {"stopped":true} and removes the lock file while the daemon is
      // still draining: wait for it to go, then kill it.
      await runAgent(agentBin('cline'), ['hub', 'stop'], home, env, 30_000);
      if (pid === undefined) return;
      const gone = await exited(pid, 10_000);
      if (!gone) kill(pid);
      assert.ok(await exited(pid, 5_000), `Cline's hub daemon (pid ${pid}) is still running`);
    },
  },
];

function snippet(client: string, gatewayUrl: string): string {
  const build = CLIENT_SNIPPETS[client];
  assert.ok(build !== undefined);
  return build({ gatewayUrl, model: MODEL, keyEnv: KEY_ENV }).text;
}

function agentBin(bin: string): string {
  return join(PREFIX ?? '', 'node_modules', '.bin', bin);
}

/** Only what an agent needs: this Node first on PATH (Claude Code and Codex start with `env node`), the HOME. */
function baseEnv(home: string): NodeJS.ProcessEnv {
  return { PATH: [dirname(process.execPath), process.env['PATH'] ?? ''].join(delimiter), HOME: home };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

/** Kills a process or, with a negative id, a process group; one already gone is fine. */
function kill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
}

/** A zombie (killed, not yet reaped by an init that reaps slowly) counts as gone. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

async function exited(pid: number, withinMs: number): Promise<boolean> {
  const deadline = performance.now() + withinMs;
  while (alive(pid) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  return !alive(pid);
}

/**
 * Runs an agent in its own process group with stdin closed, killed with all it started after `deadlineMs`;
 * anything of the group still alive when it exits is killed too.
 */
function runAgent(
  file: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  deadlineMs: number,
): Promise<{ code: number | null; output: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => {
      output += `\n[killed after ${deadlineMs} ms]`;
      kill(-(child.pid ?? 0));
    }, deadlineMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      kill(-(child.pid ?? 0));
      resolve({ code, output, ms: performance.now() - started });
    });
  });
}

let sim: RunningSimulator;
let gateway: TestGateway;

before(async () => {
  if (PREFIX === undefined) return;
  sim = await startSimulator({
    // Claude Code asks for 32000 output tokens on top of a ~20,000-token prompt (its tools counted).
    timing: { ttftMs: 2, itlMs: 0.3, prefillMsPerToken: 0, jitter: 0, maxModelLen: 200_000 },
    tools: { callRate: 1, maxToolTurns: TOOL_TURNS },
  });
  gateway = await startGateway({ upstreams: [{ name: 'sim', baseUrl: sim.url, keyless: true }] });
});
after(async () => {
  await gateway?.close();
  await sim?.close();
});

function skipReason(agent: Agent): string | undefined {
  const hint = `set TOKENMETER_AGENT_PREFIX to an npm prefix holding ${agent.pkg} (docs/clients.md, "Agents against the simulator")`;
  if (PREFIX === undefined) return `${agent.name} not installed: ${hint}`;
  if (!existsSync(agentBin(agent.bin))) return `${agent.name} not found at ${agentBin(agent.bin)}: ${hint}`;
  return undefined;
}

/** One line per record, with the tool the simulator called (its ground truth, by the request id the gateway sent). */
function lines(records: readonly RequestRecord[]): string[] {
  return records.map(
    (r) =>
      `${r.method} ${r.pathAsked} ${r.outcome}(${r.status}) session=${r.sessionId} (${r.sessionSource}) turn=${r.turn} ` +
      `waitBeforeMs=${r.waitBeforeMs} toolCalls=${r.toolCalls} (${sim.truth(r.requestId)?.toolCall ?? '-'}) ` +
      `toolResults=${r.toolResults} promptTokens=${r.promptTokens} ttftMs=${r.ttftMs}`,
  );
}

function summary(records: readonly RequestRecord[]): string {
  return lines(records).join('\n');
}

for (const agent of AGENTS) {
  test(`${agent.name}: one session of turns 0..N through the gateway, tool calls and results counted`, async (t: TestContext) => {
    const reason = skipReason(agent);
    if (reason !== undefined) return t.skip(reason);
    const home = await mkdtemp(join(tmpdir(), 'tokenmeter-agent-home-'));
    const work = await mkdtemp(join(tmpdir(), 'tokenmeter-agent-work-'));
    let env: NodeJS.ProcessEnv = baseEnv(home);
    try {
      env = { ...env, ...(await agent.configure(home, gateway.url)) };
      const first = gateway.records.length;
      const run = await runAgent(agentBin(agent.bin), agent.args, work, env, AGENT_DEADLINE_MS);
      const records = gateway.records.slice(first).filter((r) => r.pathAsked === agent.path);
      t.diagnostic(`${agent.name}: ${run.ms.toFixed(0)} ms, exit ${run.code}`);
      for (const line of lines(records)) t.diagnostic(line);
      assert.equal(run.code, 0, run.output.slice(-4000));
      assert.ok(records.length >= TOOL_TURNS + 1, summary(records));
      for (const r of records) assert.equal(r.outcome, 'ok', summary(records));
      assert.equal(new Set(records.map((r) => r.sessionId)).size, 1, summary(records));
      assert.ok(records[0]?.sessionId, 'the session has an id');
      for (const r of records) assert.equal(r.sessionSource, agent.sessionSource);
      assert.deepEqual(
        records.map((r) => r.turn),
        records.map((_, i) => i),
      );
      const called = records.findIndex((r) => (r.toolCalls ?? 0) >= 1);
      assert.ok(called >= 0, `a tool call: ${summary(records)}`);
      assert.ok(
        records.slice(called + 1).some((r) => (r.toolResults ?? 0) >= 1),
        `a tool result after it: ${summary(records)}`,
      );
      assert.deepEqual(await readdir(work), [], 'the synthetic tool arguments left the folder empty');
    } finally {
      await agent.cleanUp?.(home, env);
      await rm(home, { recursive: true, force: true });
      await rm(work, { recursive: true, force: true });
    }
  });
}
