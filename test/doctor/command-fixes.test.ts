// The doctor turning each broken command of the troubleshooting list into one that runs: `tokenmeter doctor
// --command` against a chat-only, keyed simulator (and, for the hosted cases, a scripted upstream serving it under
// /api, as hosted gateways do), then the corrected command run as printed, through a POSIX shell, with
// `tokenmeter bench` standing in for vLLM's script (bench takes vLLM's flags; vLLM itself cannot be installed here:
// no Python package registry). Each row asserts the change the doctor explains, that the corrected command exits 0
// with every request successful, and, where tokenmeter bench does not repair the mistake itself, that the
// original command fails.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { CLI_PATH, runCli } from '../helpers/run-cli.js';
import { qwenTokenizerDir } from '../loadgen/helpers/bench-fixtures.js';

const MODEL = 'Qwen/Qwen2.5-Coder-32B-Instruct';
const KEY = 'sk-test-never-printed-4711';
const SMALL_RUN = '--dataset-name random --random-input-len 16 --random-output-len 4 --num-prompts 3';

let sim: RunningSimulator;
let hosted: Server;
let hostedPort: number;
let deadPort: number;
let workDir: string;

/** A hosted gateway's shape: the API lives under /api (https://taotoken.net/api), anything else is 404. */
function startHosted(upstream: URL): Promise<Server> {
  const server = createServer((req, res) => {
    if (!req.url?.startsWith('/api/')) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"Not Found"}}');
      return;
    }
    const forward = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: req.url.slice('/api'.length),
        method: req.method,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(forward);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** A loopback port nothing listens on: bound, then released. */
async function freedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

before(async () => {
  sim = await startSimulator({
    timing: { ttftMs: 2, itlMs: 1, jitter: 0 },
    chatOnly: true,
    apiKey: KEY,
    servedModelNames: [MODEL],
  });
  hosted = await startHosted(new URL(sim.url));
  hostedPort = (hosted.address() as AddressInfo).port;
  deadPort = await freedPort();
  workDir = await mkdtemp(join(tmpdir(), 'doctor-fixes-'));
});

after(async () => {
  await new Promise((resolve) => hosted.close(resolve));
  await sim.close();
  await rm(workDir, { recursive: true, force: true });
});

function shellEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env['PATH'] ?? '',
    TAOTOKEN_API_KEY: KEY,
    TAOTOKEN_BASE_URL: `http://127.0.0.1:${hostedPort}/api`,
    ...extra,
  };
}

/** The command as a shell would run it, vLLM's launcher replaced by tokenmeter bench. */
function runAsBench(
  command: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const line = command.replace(
    /python benchmark_serving\.py|vllm bench serve/,
    `"${process.execPath}" "${CLI_PATH}" bench`,
  );
  assert.notEqual(line, command, 'the launcher was replaced');
  return new Promise((resolve) => {
    execFile('sh', ['-c', line], { env, cwd: workDir, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : ((error as { code?: number }).code ?? 1), stdout, stderr });
    });
  });
}

function correctedCommand(stdout: string): string {
  const found = /corrected command \(\d+ changes?\):\n\n([\s\S]*?)\n\nwhy:/.exec(stdout);
  assert.ok(found, `a corrected command in:\n${stdout}`);
  return found[1] as string;
}

async function doctorFixes(command: string, env: NodeJS.ProcessEnv) {
  const result = await runCli(['doctor', '--command', command, '--timeout-ms', '3000'], env);
  assert.equal(result.code, 0, `doctor passes once corrected:\n${result.stdout}${result.stderr}`);
  assert.match(result.stdout, /checked again with these changes: \d+ ok, \d+ warnings, 0 failing, 0 skipped/);
  assert.ok(!result.stdout.includes(KEY), 'the key is never printed');
  return { stdout: result.stdout, corrected: correctedCommand(result.stdout) };
}

async function assertRunsGreen(corrected: string, env: NodeJS.ProcessEnv): Promise<string> {
  const run = await runAsBench(corrected, env);
  assert.equal(run.code, 0, `the corrected command runs:\n${corrected}\n${run.stdout}${run.stderr}`);
  assert.match(run.stdout, /Successful requests:\s+3\b/);
  assert.match(run.stdout, /Failed requests:\s+0\b/);
  return run.stdout + run.stderr;
}

test("the article's original command (--backend vllm, --host/--port, no key): backend, endpoint and key fixed", async () => {
  const env = shellEnv();
  const original =
    'python benchmark_serving.py --backend vllm \\ --tokenizer ' +
    `${qwenTokenizerDir()} \\ ${SMALL_RUN} \\ --request-rate inf \\ --host 127.0.0.1 \\ --port ${new URL(sim.url).port}`;
  const { stdout, corrected } = await doctorFixes(original, env);
  assert.match(
    stdout,
    /--backend vllm -> openai-chat --endpoint \/v1\/chat\/completions: \/v1\/completions answered 404 but \/v1\/chat\/completions works/,
  );
  assert.match(
    stdout,
    /key: the endpoint answered 401 and OPENAI_API_KEY is not set in this shell, TAOTOKEN_API_KEY is/,
  );
  assert.match(
    corrected,
    /^OPENAI_API_KEY="\$TAOTOKEN_API_KEY" python benchmark_serving\.py \\\n {2}--backend openai-chat \\\n {2}--endpoint \/v1\/chat\/completions \\/,
  );
  const before = await runAsBench(original, env);
  assert.notEqual(before.code, 0, 'the original fails');
  await assertRunsGreen(corrected, env);
});

test('--host/--port against a hosted base URL: replaced by --base-url "$TAOTOKEN_BASE_URL"', async () => {
  const env = shellEnv();
  const original = `python benchmark_serving.py --backend openai-chat --endpoint /v1/chat/completions --host 127.0.0.1 --port ${hostedPort} --api-key "$TAOTOKEN_API_KEY" --model ${MODEL} ${SMALL_RUN}`;
  const { stdout, corrected } = await doctorFixes(original, env);
  assert.match(
    stdout,
    /--host\/--port -> --base-url "\$TAOTOKEN_BASE_URL" \(http:\/\/127\.0\.0\.1:\d+\/api\): the benchmark builds/,
  );
  assert.match(corrected, /--base-url "\$TAOTOKEN_BASE_URL"/);
  assert.doesNotMatch(corrected, /--host|--port/);
  const before = await runAsBench(original, env);
  assert.match(before.stdout, /HTTP 404/, 'the original reaches the host without its /api path');
  await assertRunsGreen(corrected, env);
});

test('a base URL ending in /v1: the /v1 is dropped', async () => {
  const env = shellEnv();
  // vLLM's script would request /api/v1/v1/chat/completions (404); tokenmeter bench already strips the extra /v1,
  // so the original is not run here: the change itself is what vLLM's users need.
  const original = `vllm bench serve --backend openai-chat --endpoint /v1/chat/completions --base-url=http://127.0.0.1:${hostedPort}/api/v1 --api-key "$TAOTOKEN_API_KEY" --model ${MODEL} ${SMALL_RUN}`;
  const { stdout, corrected } = await doctorFixes(original, env);
  assert.match(
    stdout,
    /--base-url http:\/\/127\.0\.0\.1:\d+\/api\/v1 -> http:\/\/127\.0\.0\.1:\d+\/api: .* requests \/v1\/v1\/\.\.\., which servers answer 404/,
  );
  assert.match(corrected, new RegExp(`--base-url http://127\\.0\\.0\\.1:${hostedPort}/api \\\\`));
  await assertRunsGreen(corrected, env);
});

test('a weights path as --model: the served model ID, and the path kept as --tokenizer', async () => {
  const env = shellEnv();
  const weights = qwenTokenizerDir();
  const original = `OPENAI_API_KEY="$TAOTOKEN_API_KEY" python benchmark_serving.py --backend openai-chat --endpoint /v1/chat/completions --base-url "$TAOTOKEN_BASE_URL" --model=${weights} ${SMALL_RUN}`;
  const { stdout, corrected } = await doctorFixes(original, env);
  assert.ok(
    stdout.includes(
      `--model ${weights} -> ${MODEL} (and --tokenizer ${weights}): '${weights}' is a local weights path, not a model ID`,
    ),
  );
  assert.match(
    corrected,
    new RegExp(`--model ${MODEL.replace(/\./g, '\\.')} \\\\\\n {2}--tokenizer ${weights}`),
  );
  const before = await runAsBench(original, env);
  assert.match(before.stdout, /hint \(404\): the model '.*' is a local weights path/);
  await assertRunsGreen(corrected, env);
});

test('an unset key variable: the variable that is set, by name only', async () => {
  const env = shellEnv();
  const original = `python benchmark_serving.py --backend openai-chat --endpoint /v1/chat/completions --base-url "$TAOTOKEN_BASE_URL" --api-key "$TAOTOKEN_KEY" --model ${MODEL} ${SMALL_RUN}`;
  const { stdout, corrected } = await doctorFixes(original, env);
  assert.match(
    stdout,
    /key: TAOTOKEN_KEY is not set in this shell, TAOTOKEN_API_KEY is \(its value is never printed\)/,
  );
  assert.match(corrected, /--api-key "\$TAOTOKEN_API_KEY"/);
  const before = await runAsBench(original, env);
  assert.notEqual(before.code, 0, 'the original sends an empty key');
  await assertRunsGreen(corrected, env);
});

test('a stale HTTP_PROXY (a dead loopback port): unset in front of the command', async () => {
  const env = shellEnv({
    HTTP_PROXY: `http://127.0.0.1:${deadPort}`,
    http_proxy: `http://127.0.0.1:${deadPort}`,
  });
  const original = `python benchmark_serving.py --backend openai-chat --endpoint /v1/chat/completions --base-url "$TAOTOKEN_BASE_URL" --api-key "$TAOTOKEN_API_KEY" --model ${MODEL} ${SMALL_RUN}`;
  const { stdout, corrected } = await doctorFixes(original, env);
  assert.match(
    stdout,
    /unset http_proxy HTTP_PROXY: http_proxy sends 127\.0\.0\.1:\d+ through http:\/\/127\.0\.0\.1:\d+, which does not answer/,
  );
  assert.match(corrected, /^env -u http_proxy -u HTTP_PROXY python benchmark_serving\.py/);
  // tokenmeter bench ignores proxy variables (vLLM's aiohttp would fail), but says when they are set: the original
  // runs with them, the corrected one without.
  const before = await runAsBench(original, env);
  assert.match(before.stdout + before.stderr, /note: HTTP_PROXY=http:\/\/127\.0\.0\.1:\d+ is set/);
  const after = await assertRunsGreen(corrected, env);
  assert.doesNotMatch(after, /_PROXY=|_proxy=/);
});

test('Unprocessable Entity: a completions backend on the chat endpoint, and a chat backend with no --endpoint', async () => {
  const env = shellEnv();
  const common = `--base-url "$TAOTOKEN_BASE_URL" --api-key "$TAOTOKEN_API_KEY" --model ${MODEL} ${SMALL_RUN}`;
  const mismatched = `vllm bench serve --backend vllm --endpoint /v1/chat/completions ${common}`;
  const first = await doctorFixes(mismatched, env);
  assert.match(first.stdout, /--backend vllm -> openai-chat --endpoint \/v1\/chat\/completions: /);
  const refused = await runAsBench(mismatched, env);
  assert.equal(refused.code, 2, 'bench names the mismatch before sending (vLLM would get 422)');
  await assertRunsGreen(first.corrected, env);

  // vLLM posts every backend to /v1/completions unless --endpoint says otherwise (bench would not: it runs as is).
  const second = await doctorFixes(`vllm bench serve --backend openai-chat ${common}`, env);
  assert.match(
    second.stdout,
    /--endpoint \(absent: \/v1\/completions\) -> \/v1\/chat\/completions: --backend openai-chat sends chat messages/,
  );
  assert.match(second.corrected, /--backend openai-chat \\\n {2}--endpoint \/v1\/chat\/completions \\/);
});

test('--config: the corrected JSON with each change explained; --apply writes it beside the old file', async () => {
  const env = shellEnv();
  const path = join(workDir, 'bench_config.json');
  const config = {
    backend: 'vllm',
    base_url: `http://127.0.0.1:${hostedPort}/api/v1`,
    api_key_env: 'TAOTOKEN_KEY',
    model: qwenTokenizerDir(),
    dataset_name: 'random',
    random_input_len: 16,
    random_output_len: 4,
    num_prompts: 3,
    request_rate: 'inf',
  };
  const original = `${JSON.stringify(config, null, 2)}\n`;
  await writeFile(path, original);
  const first = await runCli(['doctor', '--config', path, '--apply', '--timeout-ms', '3000'], env);
  assert.equal(first.code, 0, first.stdout + first.stderr);
  for (const line of [
    /- base_url http:\/\/127\.0\.0\.1:\d+\/api\/v1 -> http:\/\/127\.0\.0\.1:\d+\/api: /,
    /- key: TAOTOKEN_KEY is not set in this shell, TAOTOKEN_API_KEY is/,
    /- backend vllm -> openai-chat endpoint \/v1\/chat\/completions: /,
    /- model .* -> Qwen\/Qwen2\.5-Coder-32B-Instruct \(and tokenizer .*\): /,
  ])
    assert.match(first.stdout, line);
  const written = join(workDir, 'bench_config.fixed.json');
  assert.ok(first.stdout.includes(`--apply: wrote ${written} (${path} is unchanged)`), first.stdout);
  assert.equal(await readFile(path, 'utf8'), original, 'the old file is untouched');
  const fixed = JSON.parse(await readFile(written, 'utf8')) as Record<string, unknown>;
  assert.deepEqual(Object.keys(fixed).slice(0, 5), [
    'backend',
    'endpoint',
    'base_url',
    'api_key_env',
    'model',
  ]);
  assert.equal(fixed['backend'], 'openai-chat');
  assert.equal(fixed['api_key_env'], 'TAOTOKEN_API_KEY');
  assert.equal(fixed['model'], MODEL);
  assert.equal(fixed['tokenizer'], qwenTokenizerDir());
  const again = await runCli(['doctor', '--config', path, '--apply', '--timeout-ms', '3000'], env);
  assert.ok(
    again.stdout.includes(`wrote ${join(workDir, 'bench_config.fixed-2.json')}`),
    'never over a file',
  );
  const run = await runCli(['bench', '--config', written, '--no-records'], env);
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /Successful requests:\s+3\b/);
});

test('a key typed on the command line is never printed: the corrected command names a variable', async () => {
  const env = shellEnv();
  const original = `python benchmark_serving.py --backend openai-chat --endpoint /v1/chat/completions --base-url "$TAOTOKEN_BASE_URL" --api-key ${KEY} --model ${MODEL}`;
  const result = await runCli(['doctor', '--command', original, '--timeout-ms', '3000'], env);
  assert.equal(result.code, 0, result.stdout + result.stderr);
  assert.ok(!result.stdout.includes(KEY) && !result.stderr.includes(KEY));
  assert.match(
    result.stdout,
    /key: a key typed on the command line lands in shell history and process lists; TAOTOKEN_API_KEY holds it/,
  );
  assert.match(correctedCommand(result.stdout), /--api-key "\$TAOTOKEN_API_KEY"/);

  // Typed in front as assignments: the one the benchmark sends becomes the variable holding it, the other leaves.
  const assigned = `OPENAI_API_KEY=${KEY} HF_TOKEN=hf-typed-secret python benchmark_serving.py --backend openai-chat --endpoint /v1/chat/completions --base-url "$TAOTOKEN_BASE_URL" --model ${MODEL}`;
  const second = await runCli(['doctor', '--command', assigned, '--timeout-ms', '3000'], env);
  assert.equal(second.code, 0, second.stdout + second.stderr);
  for (const secret of [KEY, 'hf-typed-secret'])
    assert.ok(
      !second.stdout.includes(secret) && !second.stderr.includes(secret),
      `${secret} is never printed`,
    );
  assert.match(
    second.stdout,
    /HF_TOKEN: a key typed in front of the command lands in shell history; export HF_TOKEN/,
  );
  assert.match(
    correctedCommand(second.stdout),
    /^OPENAI_API_KEY="\$TAOTOKEN_API_KEY" python benchmark_serving\.py/,
  );
});
