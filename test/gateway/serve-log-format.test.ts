// `tokenmeter serve`'s log through the real CLI: JSON lines when its output is not a terminal (a pipe here), pretty
// lines with --log-format pretty, and in both the address announced once, with the metrics port beside it.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { startCli } from '../helpers/run-cli.js';
import { startUpstream, type TestUpstream } from './helpers/upstream.js';

let upstream: TestUpstream;

before(async () => {
  upstream = await startUpstream((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"object":"list","data":[]}');
  });
});
after(() => upstream.close());

/** Runs serve with `flags`, sends one request, stops it; returns every line it wrote to standard output. */
async function serveOneRequest(flags: string[]): Promise<string[]> {
  const { child, match, output } = await startCli(
    ['serve', '--upstream', `${upstream.url}/v1`, '--port', '0', '--metrics-port', '0', ...flags],
    /listening on (http:\/\/127\.0\.0\.1:\d+)\/v1/,
    { PATH: process.env['PATH'] },
  );
  const response = await request(`${match[1]}/v1/models`);
  assert.equal(response.statusCode, 200);
  await response.body.dump();
  // 'close', not 'exit': the log lines flushed at shutdown are read to the end.
  const closed = once(child, 'close');
  child.kill('SIGTERM');
  const [code] = await closed;
  assert.equal(code, 0);
  return output()
    .split('\n')
    .filter((line) => line !== '');
}

test('piped, serve writes JSON lines, the address once with the metrics port', async () => {
  const lines = await serveOneRequest([]);
  const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  const listening = entries.filter((e) => /listening/i.test(String(e['msg'])));
  assert.equal(listening.length, 1, lines.join('\n'));
  assert.match(
    String(listening[0]?.['msg']),
    /^tokenmeter gateway listening on http:\/\/127\.0\.0\.1:\d+\/v1 -> 'upstream' at \S+; metrics on http:\/\/127\.0\.0\.1:\d+\/metrics$/,
  );
  const finished = entries.find((e) => e['msg'] === 'request finished');
  assert.equal(finished?.['status'], 200);
  assert.equal(finished?.['path'], '/v1/models');
});

test('--log-format pretty writes no JSON, and the address once', async () => {
  const lines = await serveOneRequest(['--log-format', 'pretty']);
  assert.deepEqual(
    lines.filter((line) => line.startsWith('{')),
    [],
    'no JSON line',
  );
  const listening = lines.filter((line) => /listening/i.test(line));
  assert.equal(listening.length, 1, lines.join('\n'));
  assert.match(listening[0] ?? '', /^\d\d:\d\d:\d\d\.\d{3} INFO {2}tokenmeter gateway listening on http:/);
  assert.ok(
    lines.some((line) => /INFO {2}request finished .*status=200 .*path=\/v1\/models/.test(line)),
    lines.join('\n'),
  );
});

test('--log-level warn still announces the address, and nothing at info', async () => {
  const lines = await serveOneRequest(['--log-level', 'warn', '--log-format', 'json']);
  const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  const atInfo = entries.filter((e) => e['level'] === 30).map((e) => e['msg']);
  assert.equal(atInfo.length, 1, lines.join('\n'));
  assert.match(String(atInfo[0]), /^tokenmeter gateway listening on /);
});
