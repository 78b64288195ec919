// The CLI as a user meets it: --version, every command's --help, and a mistake's one line with exit status 2.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli, startCli, stopCli } from '../helpers/run-cli.js';
import { chatBody, payloads, postAndCapture } from '../helpers/sse-capture.js';

test('--version prints the package version; --help lists the commands', async () => {
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  const version = await runCli(['--version']);
  assert.equal(version.code, 0);
  assert.equal(version.stdout.trim(), pkg.version);
  const help = await runCli(['--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /sim\s+Run a vLLM-like/);
});

test('every command has --help', async () => {
  const help = await runCli(['--help']);
  const names = [...help.stdout.matchAll(/^ {2}([a-z-]+) {2,}/gm)].map((m) => m[1] as string);
  assert.ok(names.length > 0);
  for (const name of names) {
    const res = await runCli([name, '--help']);
    assert.equal(res.code, 0, `${name} --help`);
    assert.match(res.stdout, new RegExp(`Usage:\\n {2}tokenmeter ${name}`));
  }
});

test('mistakes on the command line: a clear message and exit status 2', async () => {
  const cases: Array<[string[], RegExp]> = [
    [['simm'], /unknown command 'simm'\. Did you mean 'sim'\?/],
    [['sim', '--prot', '1'], /unknown option --prot for 'sim'\. Did you mean --port\?/],
    [['sim', '--port', 'abc'], /--port must be an integer \(got 'abc'\)/],
    [['sim', '--port', '70000'], /--port must be at most 65535/],
    [['sim', '--jitter', '2'], /--jitter must be at most 1/],
    [['sim', '--role-chunk', 'never'], /--role-chunk must be one of with-first-token, immediately/],
    [['sim', '--port'], /--port.*needs a value|argument missing/],
  ];
  for (const [args, message] of cases) {
    const res = await runCli(args);
    assert.equal(res.code, 2, `${args.join(' ')} exits 2`);
    assert.match(res.stderr, message);
    assert.doesNotMatch(res.stderr, /\n\s+at /, 'no stack trace');
  }
});

test('tokenmeter sim prints its address, streams a completion, and stops on SIGTERM', async () => {
  const { child, match } = await startCli(
    ['sim', '--port', '0', '--itl-ms', '1'],
    /listening on (http:\/\/\S+)/,
  );
  try {
    const url = match[1] as string;
    const captured = await postAndCapture(`${url}/v1/chat/completions`, chatBody({ max_tokens: 3 }));
    assert.equal(captured.status, 200);
    assert.equal(payloads(captured).at(-1), '[DONE]');
  } finally {
    assert.equal(await stopCli(child), 0);
  }
});

test('tokenmeter sim --config reads a JSON file; flags override it; bad files are named', async () => {
  const file = join(tmpdir(), `tokenmeter-sim-${process.pid}.json`);
  writeFileSync(file, JSON.stringify({ servedModelNames: ['from-file'], timing: { itlMs: 1, ttftMs: 1 } }));
  const { child, match } = await startCli(
    ['sim', '--port', '0', '--config', file, '--served-model-name', 'from-flag'],
    /listening on (\S+) \(models: (\S+)\)/,
  );
  await stopCli(child);
  assert.equal(match[2], 'from-flag');
  writeFileSync(file, JSON.stringify({ timing: { itlMS: 1 } }));
  const bad = await runCli(['sim', '--port', '0', '--config', file]);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /timing\.itlMS is not a known setting/);
  const busy = await startCli(['sim', '--port', '0'], /listening on http:\/\/127\.0\.0\.1:(\d+)/);
  try {
    const clash = await runCli(['sim', '--port', busy.match[1] as string]);
    assert.equal(clash.code, 1);
    assert.match(clash.stderr, /already in use/);
  } finally {
    await stopCli(busy.child);
  }
});

test('tokenmeter demo streams an answer from the embedded simulator and prints its timings', async () => {
  const res = await runCli(['demo']);
  assert.equal(res.code, 0, res.stderr);
  assert.match(res.stdout, /listening on http:\/\/127\.0\.0\.1:\d+/);
  assert.match(res.stdout, /TTFT \d+\.\d ms, TPOT \d+\.\d ms, 60 output tokens \(from usage\)/);
  // Text for a person, on both streams: no raw JSON log line among it (piped, as here, included).
  assert.doesNotMatch(res.stdout, /^\{/m);
  assert.doesNotMatch(res.stderr, /^\{/m);
});
