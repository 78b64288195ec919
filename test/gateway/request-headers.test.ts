// Request headers that belong to the client's connection (RFC 9110 7.6.1, RFC 9112) are answered or dropped by
// the gateway, never forwarded and never turned into a 502 blamed on the upstream: each row sends one through a
// real gateway to a real upstream, and curl itself sends a body over 1 MiB (it adds `Expect: 100-continue`).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { forwardableRequestHeaders } from '../../src/gateway/hop-by-hop.js';
import { startGateway, type TestGateway } from './helpers/gateway.js';
import { rawRequest } from './helpers/raw-http.js';
import { startUpstream, type TestUpstream } from './helpers/upstream.js';

const CURL = '/usr/bin/curl';
const ANSWER = JSON.stringify({
  id: 'chatcmpl-test',
  object: 'chat.completion',
  created: 1,
  model: 'test-model',
  choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
});

let upstream: TestUpstream;
let gateway: TestGateway;
let dir: string;
const seen = new Map<string, { headers: IncomingHttpHeaders; body: Buffer }>();

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tokenmeter-request-headers-'));
  upstream = await startUpstream((req, res, body) => {
    seen.set(String(req.headers['x-request-id']), { headers: req.headers, body });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(ANSWER);
  });
  gateway = await startGateway({ upstreams: [{ name: 'u', baseUrl: upstream.url, keyless: true }] });
});
after(async () => {
  await gateway.close();
  await upstream.close();
  await rm(dir, { recursive: true, force: true });
});

async function recordOf(id: string): Promise<string | undefined> {
  for (let i = 0; i < 100; i++) {
    const record = gateway.records.find((r) => r.requestId === id);
    if (record !== undefined) return record.outcome;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return undefined;
}

/** The body of a raw response, undoing chunked transfer coding when the head says so. */
function bodyOf(response: { head: string; body: string }): string {
  if (!/^transfer-encoding: chunked/im.test(response.head)) return response.body;
  let rest = response.body;
  let out = '';
  for (;;) {
    const eol = rest.indexOf('\r\n');
    const size = Number.parseInt(rest.slice(0, eol), 16);
    if (!(size > 0)) return out;
    out += rest.slice(eol + 2, eol + 2 + size);
    rest = rest.slice(eol + 2 + size + 2);
  }
}

interface Row {
  readonly name: string;
  /** Header lines as the client sends them. */
  readonly lines: readonly string[];
  /** Names the upstream must not see. */
  readonly absent: readonly string[];
}

// The raw client also sends `connection: close` (and the body's content-length) on every row.
const ROWS: readonly Row[] = [
  { name: 'Upgrade: websocket', lines: ['Upgrade: websocket'], absent: ['upgrade'] },
  {
    name: 'Connection: Upgrade with Upgrade: websocket',
    lines: ['Connection: Upgrade', 'Upgrade: websocket'],
    absent: ['upgrade'],
  },
  { name: 'Keep-Alive: timeout=5', lines: ['Keep-Alive: timeout=5'], absent: ['keep-alive'] },
  { name: 'Expect: 100-continue', lines: ['Expect: 100-continue'], absent: ['expect'] },
  {
    name: 'Proxy-Authorization',
    lines: ['Proxy-Authorization: Basic dXNlcjpwcm94eS1zZWNyZXQ='],
    absent: ['proxy-authorization'],
  },
  { name: 'Proxy-Connection', lines: ['Proxy-Connection: keep-alive'], absent: ['proxy-connection'] },
  { name: 'TE: trailers', lines: ['TE: trailers'], absent: ['te'] },
  { name: 'Trailer', lines: ['Trailer: x-checksum'], absent: ['trailer'] },
  {
    name: 'a header named in Connection: x-secret',
    lines: ['Connection: x-secret', 'X-Secret: s3cret'],
    absent: ['x-secret'],
  },
];

for (const [i, row] of ROWS.entries()) {
  test(`${row.name}: the request succeeds and the upstream does not see it`, async () => {
    const id = `row-${i}`;
    const response = await rawRequest(
      gateway.url,
      [
        'POST /v1/chat/completions HTTP/1.1',
        'host: gateway',
        'content-type: application/json',
        `x-request-id: ${id}`,
        'x-end-to-end: kept',
        ...row.lines,
      ].join('\r\n'),
      '{"model":"m","messages":[{"role":"user","content":"hi"}]}',
    );
    assert.equal(response.status, 200, `${response.head}\n${response.body}`);
    assert.deepEqual(JSON.parse(bodyOf(response)), JSON.parse(ANSWER));
    const upstreamSaw = seen.get(id);
    assert.ok(upstreamSaw !== undefined, 'the upstream was contacted');
    for (const name of row.absent) assert.equal(upstreamSaw.headers[name], undefined, name);
    assert.equal(upstreamSaw.headers['x-end-to-end'], 'kept');
    assert.equal(upstreamSaw.headers.host, `127.0.0.1:${upstream.port}`, "the upstream's own Host");
    assert.equal(await recordOf(id), 'ok');
  });
}

test('forwardableRequestHeaders returns a fresh object without hop-by-hop headers, credentials or Expect', () => {
  const client: IncomingHttpHeaders = {
    host: 'gateway',
    connection: 'keep-alive, X-Hop-One',
    'x-hop-one': '1',
    'keep-alive': 'timeout=5',
    'transfer-encoding': 'chunked',
    'content-length': '12',
    expect: '100-continue',
    authorization: 'Bearer client-key',
    'x-api-key': 'client-key',
    cookie: 'session=1',
    'proxy-authenticate': 'Basic',
    'content-type': 'application/json',
    'user-agent': 'test',
    'x-trace': ['a', 'b'],
  };
  const before = { ...client };
  assert.deepEqual(forwardableRequestHeaders(client), {
    'content-type': 'application/json',
    'user-agent': 'test',
    'x-trace': ['a', 'b'],
  });
  assert.deepEqual(client, before, 'the input is left alone');
  assert.deepEqual(
    forwardableRequestHeaders({ connection: 'x-a,, X-B ', 'x-a': '1', 'x-b': '2', 'x-c': '3' }),
    { 'x-c': '3' },
  );
});

test('Expect: 100-continue is answered by the gateway with 100 Continue before the final answer', async () => {
  const response = await rawRequest(
    gateway.url,
    'POST /v1/chat/completions HTTP/1.1\r\nhost: gateway\r\ncontent-type: application/json\r\nx-request-id: expect-interim\r\nexpect: 100-continue',
    '{"model":"m","messages":[]}',
  );
  assert.deepEqual(response.interim, ['HTTP/1.1 100 Continue']);
  assert.equal(response.status, 200);
});

test('curl posting a body over 1 MiB with --data-binary @file gets 100 Continue and the upstream answer', async (t) => {
  if (!existsSync(CURL)) {
    t.skip(`${CURL} not found: this test runs curl itself`);
    return;
  }
  const content = 'lorem ipsum '.repeat(Math.ceil((1.5 * 1024 * 1024) / 12));
  const body = Buffer.from(JSON.stringify({ model: 'm', messages: [{ role: 'user', content }] }));
  assert.ok(body.length > 1024 * 1024);
  const file = join(dir, 'prompt.json');
  await writeFile(file, body);
  const curl = spawn(CURL, [
    '--silent',
    '--show-error',
    '--verbose',
    '--max-time',
    '20',
    '-H',
    'content-type: application/json',
    '-H',
    'x-request-id: curl-big',
    '--data-binary',
    `@${file}`,
    `${gateway.url}/v1/chat/completions`,
  ]);
  let stdout = '';
  let stderr = '';
  curl.stdout.on('data', (c: Buffer) => {
    stdout += c.toString('utf8');
  });
  curl.stderr.on('data', (c: Buffer) => {
    stderr += c.toString('utf8');
  });
  const code = await new Promise<number | null>((resolve) => curl.on('close', resolve));
  assert.equal(code, 0, stderr);
  assert.match(stderr, /> Expect: 100-continue/i, 'curl asked for 100 Continue');
  assert.match(stderr, /< HTTP\/1\.1 100 Continue/, 'and got it');
  assert.match(stderr, /< HTTP\/1\.1 200 OK/);
  assert.deepEqual(JSON.parse(stdout), JSON.parse(ANSWER));
  const upstreamSaw = seen.get('curl-big');
  assert.ok(upstreamSaw !== undefined, 'the upstream was contacted');
  assert.ok(upstreamSaw.body.equals(body), 'the upstream received the exact bytes');
  assert.equal(upstreamSaw.headers['expect'], undefined);
  assert.equal(await recordOf('curl-big'), 'ok');
});
