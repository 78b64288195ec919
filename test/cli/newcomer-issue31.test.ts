// What a newcomer still tripped on (issue 31, items 1-8 and 10), one row each through the real executable against
// real servers on 127.0.0.1. Item 1 (the packed install) is test/cli/packed-install.test.ts.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { EXIT_OK } from '../../src/cli/command.js';
import { DEFAULT_MODEL_NAME, NO_FAULTS } from '../../src/sim/config.js';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { startGateway } from '../gateway/helpers/gateway.js';
import { until } from '../helpers/deadline.js';
import { codeBlocks, docSection, shellCommands } from '../helpers/doc-code-blocks.js';
import { runCli, startCli, stopCli } from '../helpers/run-cli.js';
import { cleanEnv, scratchDir } from '../loadgen/helpers/bench-cli.js';
import { exactTiming } from '../loadgen/helpers/bench-fixtures.js';

/** Each request: 20 ms to the first token, then 500 ms a token. */
let slowSim: RunningSimulator;
/** 5 ms to the first token, 1 ms a token: for the doctor, whose streamed check asks for 32 tokens. */
let fastSim: RunningSimulator;

before(async () => {
  slowSim = await startSimulator({ seed: 31, timing: exactTiming(20, 500) });
  fastSim = await startSimulator({ seed: 31, timing: exactTiming(5, 1) });
});
after(async () => {
  await slowSim.close();
  await fastSim.close();
});

function stderrLines(stderr: string): string[] {
  return stderr.split('\n').filter((line) => line !== '');
}

test('8: with --max-concurrency the ETA still follows the schedule: elapsed + ETA near the run end', async () => {
  // The article's shape scaled down: a rate under a cap that never binds. 40 requests at 8 req/s end their
  // schedule near 5 s, each takes about 1.5 s (4 tokens), so about 12 are in flight, under the cap of 32. Early
  // on, few have finished: the last seconds' completion rate (what the ETA read under a cap) was a fraction of 8/s.
  const res = await runCli(
    [
      'bench',
      '--base-url',
      slowSim.url,
      '--dataset-name',
      'random',
      '--random-input-len',
      '8',
      '--random-output-len',
      '4',
      '--ignore-eos',
      '--num-prompts',
      '40',
      '--request-rate',
      '8',
      '--burstiness',
      '1000',
      '--max-concurrency',
      '32',
      '--no-records',
    ],
    cleanEnv(),
  );
  assert.equal(res.code, EXIT_OK, res.stderr);
  const duration = Number(res.stdout.match(/^Benchmark duration \(s\): +([\d.]+)/m)?.[1]);
  const lines = stderrLines(res.stderr).filter((line) => line.startsWith('progress: '));
  assert.ok(lines.length >= 5, res.stderr);
  let checked = 0;
  for (const line of lines) {
    const match = line.match(/^progress: (\d+)\/40 done .*, ([\d.]+) s, ETA (\d+):(\d\d);/);
    assert.ok(match, line);
    const [done, elapsed, minutes, seconds] = match.slice(1).map(Number) as [number, number, number, number];
    if (done < 4 || done === 40) continue;
    checked++;
    // The ETA is printed in whole seconds, rounded up: a second of slack beside the 10%.
    const predicted = elapsed + minutes * 60 + seconds;
    assert.ok(Math.abs(predicted - duration) <= 0.1 * duration + 1, `${line} (run took ${duration} s)`);
  }
  assert.ok(checked >= 3, res.stderr);
});

/** Gateway records of chat requests whose bodies were kept (--record-bodies), one a second. */
function recordsWithBodies(prompts: readonly string[]): string {
  return prompts
    .map((content, i) =>
      JSON.stringify({
        role: 'primary',
        startedAt: new Date(Date.UTC(2026, 11, 7, 12, 0, i)).toISOString(),
        promptTokens: 400,
        outputTokens: 4,
        requestBody: JSON.stringify({ model: 'm', messages: [{ role: 'user', content }] }),
      }),
    )
    .join('\n');
}

test('7: trace export warns when prompts share less than a block, naming the block size that shows it', async () => {
  const dir = scratchDir();
  const words = (prefix: string, count: number): string =>
    Array.from({ length: count }, (_, i) => `${prefix}${i}`).join(' ');
  // Four prompts on one 300-word preamble (the built-in rule counts a word a token), each going on with its own.
  const preamble = words('shared', 300);
  const prompts = ['a', 'b', 'c', 'd'].map((own) => `${preamble} ${words(own, 200)}`);
  writeFileSync(join(dir, 'gateway.jsonl'), recordsWithBodies(prompts));
  const at512 = await runCli(['trace', 'export', 'gateway.jsonl', '-o', 'trace.jsonl'], cleanEnv(), dir);
  assert.equal(at512.code, EXIT_OK, at512.stderr);
  const ids = readFileSync(join(dir, 'trace.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => (JSON.parse(line) as { hash_ids: number[] }).hash_ids[0]);
  assert.equal(new Set(ids).size, 4, 'at 512-token blocks no first block is shared');
  assert.match(
    at512.stderr,
    /^warning: 3 requests begin with up to \d+ tokens an earlier one began with, less than one 512-token block, so their block ids share nothing: export with --block-tokens 256 and replay with --trace-block-tokens 256 to keep it$/m,
  );
  // As advised: the first block is shared, and nothing is left to warn about.
  const at256 = await runCli(
    ['trace', 'export', 'gateway.jsonl', '-o', 'trace256.jsonl', '--block-tokens', '256'],
    cleanEnv(),
    dir,
  );
  assert.equal(at256.code, EXIT_OK, at256.stderr);
  assert.doesNotMatch(at256.stderr, /warning/);
  const firsts = readFileSync(join(dir, 'trace256.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => (JSON.parse(line) as { hash_ids: number[] }).hash_ids[0]);
  assert.equal(new Set(firsts).size, 1);
});

test('7: a timed_trace run has no note about the random dataset; trace export --help gives its default once', async () => {
  const dir = scratchDir();
  writeFileSync(
    join(dir, 'trace.jsonl'),
    '{"timestamp":0,"input_length":40,"output_length":1,"hash_ids":[0]}\n' +
      '{"timestamp":100,"input_length":40,"output_length":1,"hash_ids":[0]}\n',
  );
  const res = await runCli(
    [
      'bench',
      '--backend',
      'openai',
      '--base-url',
      slowSim.url,
      '--dataset-name',
      'timed_trace',
      '--dataset-path',
      'trace.jsonl',
      '--timed-trace-sec-multiplier',
      '0.001',
      '--no-records',
    ],
    cleanEnv(),
    dir,
  );
  assert.equal(res.code, EXIT_OK, res.stderr);
  assert.match(res.stderr, /^note: timed_trace: ignore_eos is sent/m);
  assert.doesNotMatch(res.stderr, /random dataset/);
  for (const command of [['trace', 'export'], ['doctor']]) {
    const help = await runCli([...command, '--help'], cleanEnv());
    assert.equal(help.code, EXIT_OK);
    for (const line of help.stdout.split('\n'))
      assert.ok((line.match(/default/gi) ?? []).length <= 1, `one default a line: ${line}`);
  }
});

test('5: doctor --command keeps "$VAR" references and says which variable to fix', async () => {
  const env = cleanEnv({
    TAOTOKEN_BASE_URL: fastSim.url,
    BENCH_MODEL_ID: 'sim-7b-typo',
    TAOTOKEN_API_KEY: 'sk-test-issue31',
  });
  const command =
    'vllm bench serve --backend openai-chat --endpoint /v1/chat/completions --base-url "$TAOTOKEN_BASE_URL" ' +
    '--model "$BENCH_MODEL_ID" --api-key "$TAOTOKEN_API_KEY" --dataset-name random --num-prompts 5';
  const res = await runCli(['doctor', '--command', command], env);
  // The recheck runs with the changes applied, so it passes.
  assert.equal(res.code, EXIT_OK, res.stdout + res.stderr);
  const corrected = res.stdout.slice(res.stdout.indexOf('vllm bench serve'), res.stdout.indexOf('why:'));
  assert.match(corrected, /--base-url "\$TAOTOKEN_BASE_URL"/);
  assert.match(corrected, /--model "\$BENCH_MODEL_ID"/);
  assert.doesNotMatch(
    corrected,
    /tokenmeter\/sim-7b|127\.0\.0\.1/,
    'no literal value in place of a variable',
  );
  assert.match(
    res.stdout,
    /^ {2}- export BENCH_MODEL_ID=tokenmeter\/sim-7b for --model "\$BENCH_MODEL_ID" \(it holds sim-7b-typo\): 'sim-7b-typo' is not served/m,
  );
  assert.doesNotMatch(res.stdout + res.stderr, /sk-test-issue31/);
});

test('5: plain doctor names the key variable it found set; --backend vllm is reported as vllm', async () => {
  const res = await runCli(
    ['doctor', '--base-url', fastSim.url, '--backend', 'vllm'],
    cleanEnv({ TAOTOKEN_API_KEY: 'sk-test-issue31' }),
  );
  assert.equal(res.code, EXIT_OK, res.stdout + res.stderr);
  assert.match(
    res.stdout,
    /^\[warn\] API key: no key given and OPENAI_API_KEY is unset; TAOTOKEN_API_KEY is set, but only a variable named with --api-key-env is read$/m,
  );
  assert.match(res.stdout, /fix: pass --api-key-env TAOTOKEN_API_KEY to send it/);
  assert.match(res.stdout, /^\[ok\] +backend vllm fits: a completions body to \/v1\/completions works$/m);
  assert.doesNotMatch(res.stdout, /sk-test-issue31/);
});

test("10: print-config claude-code's capped output fits the context it names, with a prompt of Claude Code's size", async (t) => {
  const res = await runCli(
    ['print-config', 'claude-code', '--gateway-url', 'http://127.0.0.1:8080'],
    cleanEnv(),
  );
  assert.equal(res.code, EXIT_OK, res.stderr);
  const match = res.stdout.match(
    /"CLAUDE_CODE_MAX_OUTPUT_TOKENS" to env .*"(\d+)" for a (\d+)-token context/,
  );
  const advised = Number(match?.[1]);
  const context = Number(match?.[2]);
  assert.ok(advised > 0 && context > 0, res.stdout);
  const sim = await startSimulator({ seed: 31, timing: { ...exactTiming(5, 1), maxModelLen: context } });
  t.after(() => sim.close());
  // A prompt the size of Claude Code's own with its tool definitions (about 20,400 tokens in the gateway's records
  // of Claude Code 2.1.197 against the simulator, docs/clients.md).
  const prompt = Array.from({ length: 20_400 }, (_, i) => `w${i % 97}`).join(' ');
  const ask = async (maxTokens: number) => {
    const answer = await request(`${sim.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({
        model: DEFAULT_MODEL_NAME,
        max_tokens: maxTokens,
        messages: [{ role: 'user', content: prompt }],
      }),
    });
    const body = (await answer.body.json()) as { usage?: { input_tokens: number } };
    return { status: answer.statusCode, inputTokens: body.usage?.input_tokens };
  };
  const fits = await ask(advised);
  assert.equal(fits.status, 200, `max_tokens ${advised} in a ${context}-token context`);
  assert.ok((fits.inputTokens ?? 0) >= 20_000, `the prompt counts ${fits.inputTokens} tokens`);
  assert.equal((await ask(32_000)).status, 400, "Claude Code's own 32000 does not fit");
});

test('10: a 422 from /v1/messages is explained in Messages terms, not chat or completions', async () => {
  const upstream = createServer((req, res) => {
    req.resume();
    res.writeHead(422, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: 'bad body' } }));
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = upstream.address() as AddressInfo;
    const res = await runCli(
      [
        'bench',
        '--backend',
        'anthropic-messages',
        '--base-url',
        `http://127.0.0.1:${port}`,
        '--model',
        'm',
        '--num-prompts',
        '2',
        '--no-records',
      ],
      cleanEnv(),
    );
    const out = res.stdout + res.stderr;
    assert.match(out, /the body does not fit the Anthropic Messages endpoint/, out);
    assert.doesNotMatch(out, /\/v1\/chat\/completions|\/v1\/completions/, out);
  } finally {
    upstream.close();
  }
});

test("10: the README's doubled-/v1 log line is the one the gateway writes", async () => {
  const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
  const quoted = readme.match(/logged a warning once for that path: `([^`]+)`/)?.[1];
  assert.ok(quoted !== undefined, 'the README quotes the line');
  const gateway = await startCli(
    ['serve', '--upstream', `${fastSim.url}/v1`, '--port', '0'],
    /listening on (http:\/\/[^\s/]+:\d+)\/v1/,
    cleanEnv(),
  );
  try {
    const answer = await request(`${gateway.match[1]}/v1/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: DEFAULT_MODEL_NAME,
        messages: [{ role: 'user', content: 'Hello' }],
        max_tokens: 5,
        stream: true,
      }),
    });
    assert.equal(answer.statusCode, 200);
    await answer.body.text();
    // The log is written asynchronously: wait for the request's own line, which comes after the warning.
    const messages = () =>
      gateway
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{') && line.endsWith('}'))
        .map((line) => (JSON.parse(line) as { msg: string }).msg);
    await until(
      () => messages().includes('request finished'),
      () => `the gateway's "request finished" line in ${gateway.output()}`,
    );
    assert.ok(messages().includes(quoted), `${quoted}\nnot among\n${messages().join('\n')}`);
  } finally {
    await stopCli(gateway.child);
  }
});

test('6: the HTML report shows no vLLM key as metadata, and says there is no segment data instead of grey bars', async () => {
  const dir = scratchDir();
  const res = await runCli(
    [
      'bench',
      '--base-url',
      fastSim.url,
      '--dataset-name',
      'random',
      '--random-input-len',
      '8',
      '--random-output-len',
      '4',
      '--num-prompts',
      '4',
      '--metadata',
      'team=newcomers',
      '--html',
      'report.html',
      '--no-records',
    ],
    cleanEnv(),
    dir,
  );
  assert.equal(res.code, EXIT_OK, res.stderr);
  const html = readFileSync(join(dir, 'report.html'), 'utf8');
  assert.match(html, /metadata: team/, 'the --metadata pair is a metadata row');
  assert.doesNotMatch(html, /metadata: (rtfx|probe_|spec_decode_|gpu_|energy_)/);
  const section = html.slice(html.indexOf('Where the time went'));
  assert.match(section, /No segment data: nothing split these requests into segments/);
  assert.doesNotMatch(html, /data-segment=/, 'no bar drawn');
});

test("6: a paired chart's marker label stays inside the chart when the marker is at its right end", async () => {
  const dir = scratchDir();
  // Every mirror answered faster than its primary: all differences negative, so 0 is the chart's right end.
  const lines = Array.from({ length: 12 }, (_, i) =>
    ['primary', 'mirror'].map((role) =>
      JSON.stringify({
        requestId: `${role}-${i}`,
        pairId: `pair-${i}`,
        role,
        outcome: 'ok',
        status: 200,
        ttftMs: role === 'primary' ? 100 + i : 60 + i,
        tpotMs: role === 'primary' ? 20 : 10,
        e2eMs: role === 'primary' ? 400 + i : 200 + i,
        outputTokens: 16,
      }),
    ),
  ).flat();
  writeFileSync(join(dir, 'pairs.jsonl'), `${lines.join('\n')}\n`);
  const res = await runCli(['compare', '--pairs', 'pairs.jsonl', '--html', 'pairs.html'], cleanEnv(), dir);
  assert.equal(res.code, EXIT_OK, res.stderr);
  const html = readFileSync(join(dir, 'pairs.html'), 'utf8');
  const labels = [...html.matchAll(/<text class="marker-label" x="([\d.]+)"([^>]*)>no difference<\/text>/g)];
  assert.ok(labels.length > 0, 'a marker labelled "no difference"');
  for (const [, x, attributes] of labels) {
    // 13 characters of 12 px bold text are about 90 px: drawn to the right of x, they need that much room.
    const roomRight = 680 - Number(x);
    assert.ok(
      (attributes ?? '').includes('text-anchor="end"') || roomRight > 90,
      `label at x=${x} with ${roomRight} px to the edge: ${attributes}`,
    );
  }
});

test('6: a smoke refused with 401 ends without a capacity verdict; a refused connection is named as such', async () => {
  const keyed = await startSimulator({ seed: 31, timing: exactTiming(5, 1), apiKey: 'sk-sim-issue31' });
  try {
    const res = await runCli(
      [
        'bench',
        '--base-url',
        keyed.url,
        '--model',
        DEFAULT_MODEL_NAME,
        '--num-prompts',
        '3',
        '--smoke',
        '--no-records',
      ],
      cleanEnv(),
    );
    assert.notEqual(res.code, EXIT_OK);
    assert.match(res.stdout + res.stderr, /HTTP 401/);
    assert.doesNotMatch(
      res.stdout + res.stderr,
      /memory- nor concurrency-bound|memory-bound|concurrency-bound/,
    );
  } finally {
    await keyed.close();
  }
  // A port nothing listens on: the one a closed server had.
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const { port } = closed.address() as AddressInfo;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const refused = await runCli(
    ['bench', '--base-url', `http://127.0.0.1:${port}`, '--num-prompts', '2', '--no-records'],
    cleanEnv(),
  );
  assert.notEqual(refused.code, EXIT_OK);
  assert.match(
    refused.stderr,
    /cannot reach http:\/\/127\.0\.0\.1:\d+\/v1\/models \(.*ECONNREFUSED.*\): check that the server is running/,
  );
  assert.doesNotMatch(refused.stderr, /add --model/);
});

test("3: a stream the gateway cut for its idle timeout: bench prints the gateway's reason", async () => {
  // The simulator pauses 3 s after 2 tokens; the gateway waits at most 300 ms between chunks.
  const stalling = await startSimulator({
    seed: 31,
    timing: exactTiming(5, 1),
    faults: { ...NO_FAULTS, stallAfterTokens: 2, stallMs: 3000 },
  });
  const gateway = await startGateway({
    upstreams: [
      { name: 'stalling', baseUrl: `${stalling.url}/v1`, keyless: true, timeouts: { idleMs: 300 } },
    ],
  });
  try {
    const res = await runCli(
      [
        'bench',
        '--base-url',
        gateway.url,
        '--model',
        DEFAULT_MODEL_NAME,
        '--dataset-name',
        'random',
        '--random-input-len',
        '8',
        '--random-output-len',
        '16',
        '--num-prompts',
        '1',
        '--no-success-floor',
        '--no-records',
      ],
      cleanEnv(),
    );
    assert.match(
      res.stdout,
      /truncated: 1 request[\s\S]*first, request #0: .*\(gateway: upstream 'stalling' sent nothing for 300 ms mid-response \(timeouts\.idleMs\); the stream was cut\)/,
      res.stdout + res.stderr,
    );
  } finally {
    await gateway.close();
    await stalling.close();
  }
});

test("2: a sweep says each level's requests and about how long it runs before the first level starts", async () => {
  const dir = scratchDir();
  const res = await runCli(
    [
      'sweep',
      '--base-url',
      fastSim.url,
      '--model',
      DEFAULT_MODEL_NAME,
      '--dataset-name',
      'random',
      '--random-input-len',
      '8',
      '--random-output-len',
      '4',
      '--rates',
      '4,8',
      '--level-seconds',
      '1',
      '--num-prompts',
      '2',
      '--no-records',
    ],
    cleanEnv(),
    dir,
  );
  assert.equal(res.code, EXIT_OK, res.stderr);
  const lines = (res.stdout + res.stderr).split('\n');
  const planAt = lines.findIndex((line) => line.startsWith('plan: '));
  const firstLevelAt = lines.findIndex((line) => /^rate 4: \d+ requests/.test(line));
  assert.ok(planAt >= 0 && firstLevelAt > planAt, lines.join('\n'));
  // Each level's planned count is the count it ran; 1 s at 4 and 8 req/s, a little more with the tail.
  for (const [rate, count] of [
    ['4', 4],
    ['8', 8],
  ] as const) {
    assert.ok(
      lines.includes(`plan: ${rate} req/s: ${count} requests, about 2 s`) ||
        lines.includes(`plan: ${rate} req/s: ${count} requests, about 1 s`),
      lines.join('\n'),
    );
    assert.ok(
      lines.some((line) => line.startsWith(`rate ${rate}: ${count} requests,`)),
      lines.join('\n'),
    );
  }
  assert.ok(
    lines.some((line) => /^plan: 2 levels, 12 requests, about \d+ s in all/.test(line)),
    lines.join('\n'),
  );
});

test("4: docs/loadgen.md's reasoning example passes its own threshold as written; multi-turn says how many turns", async () => {
  const doc = readFileSync(new URL('../../../docs/loadgen.md', import.meta.url), 'utf8');
  const section = docSection(doc, '### Reasoning models');
  const [simLine, benchLine] = codeBlocks(section, 'sh').flatMap((block) =>
    shellCommands(block, 'tokenmeter'),
  );
  assert.ok(simLine !== undefined && benchLine !== undefined, section);
  // The simulator as the page starts it (its own timing, 64 reasoning tokens), the bench command as written but
  // for the port: the threshold holds (exit 0), where 50 requests at once failed it (exit 99).
  const reasoning = await startCli(
    [...simLine.argv.filter((word) => word !== '&'), '--port', '0'],
    /listening on (http:\/\/\S+)/,
    cleanEnv(),
  );
  try {
    const argv = benchLine.argv.map((word) => (word === 'http://127.0.0.1:8000' ? reasoning.match[1] : word));
    const res = await runCli([...(argv as string[]), '--no-records'], cleanEnv());
    assert.equal(res.code, EXIT_OK, res.stdout + res.stderr);
    assert.match(res.stdout, /^pass +ttfo_p99 < 2000ms: /m);
  } finally {
    await stopCli(reasoning.child);
  }
  // The multi-turn example on the bundled sample: the note says the sessions are mostly one turn.
  const multi = await runCli(
    [
      'bench',
      '--base-url',
      fastSim.url,
      '--model',
      DEFAULT_MODEL_NAME,
      '--multi-turn',
      '--max-turns',
      '4',
      '--num-prompts',
      '50',
      '--request-rate',
      'inf',
      '--sharegpt-output-len',
      '2',
      '--no-records',
    ],
    cleanEnv(),
  );
  assert.equal(multi.code, EXIT_OK, multi.stderr);
  assert.match(
    multi.stderr,
    /^note: 50 sessions of 5\d turns \(1\.\d a session, at most 4\); \d+ of them have a single turn, so few requests carry a history/m,
  );
});
