// Fault row: the upstream echoes the gateway's own upstream key (the `Authorization` it was sent) in its error:
// as JSON, as plain text, split across two writes, with 401/403/500, and inside an error event of a 200 stream.
// The client still gets the status and the rest of the error text, and the key appears in none of the client's
// body, the records (in memory and in the file), the log lines or /metrics. A split key is written in two halves
// with the second held back until the client has received what the gateway forwarded of the first, so the row
// shows that no byte of the key went out ahead of the rest.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { REDACTED } from '../../src/gateway/exchange/key-scrubber.js';
import type { RequestRecord } from '../../src/gateway/records/record.js';
import { startGateway, type TestGateway } from '../gateway/helpers/gateway.js';
import { chatChunk, startUpstream, type TestUpstream } from '../gateway/helpers/upstream.js';
import { closeAndAccount } from './accounting.js';

const KEY = 'sk-proj-echo-7Hq2mX9vTz41LbWc';

let upstream: TestUpstream;
let gateway: TestGateway;
let dir: string;
let sent = 0;
/** Set by the upstream before it writes the first half of a split key; called once the client has a chunk. */
let releaseRest: (() => void) | null = null;

/** A successful answer that holds the key's start (not the key): it must reach the client unchanged. */
const KEY_START = KEY.slice(0, 14);
const SUCCESS_WITH_KEY_START = `${chatChunk({ content: `keys look like ${KEY_START}...` })}${chatChunk({}, 'stop')}data: [DONE]\n\n`;

/** Writes `text` in two parts cut inside `inside`, the second once the client received the first. */
function writeSplit(res: ServerResponse, text: string, inside = KEY): void {
  const cut = text.indexOf(inside) + 7;
  const rest = new Promise<void>((resolve) => {
    releaseRest = resolve;
  });
  res.write(text.slice(0, cut));
  void rest.then(() => res.end(text.slice(cut)));
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tokenmeter-key-echo-'));
  upstream = await startUpstream((req, res) => {
    const auth = String(req.headers.authorization);
    const json = JSON.stringify({
      error: { message: `Incorrect API key provided: ${auth}`, type: 'invalid_request_error' },
    });
    switch (req.headers['x-fault']) {
      case 'json-401':
        res.writeHead(401, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) });
        res.end(json);
        return;
      case 'text-403':
        res.writeHead(403, { 'content-type': 'text/plain' });
        res.end(`forbidden: ${auth} may not use model m`);
        return;
      case 'split-500':
        // A declared length that the scrubbed body no longer has: the gateway must not pass it on.
        res.writeHead(500, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) });
        writeSplit(res, json);
        return;
      case 'event-200':
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        writeSplit(res, `${chatChunk({ content: 'hi' })}data: ${json}\n\n`);
        return;
      case 'ok-200':
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        writeSplit(res, SUCCESS_WITH_KEY_START, KEY_START);
        return;
      default:
        res.writeHead(400);
        res.end();
    }
  });
  gateway = await startGateway(
    {
      upstreams: [{ name: 'hosted', baseUrl: upstream.url, keyEnv: 'ECHO_KEY' }],
      records: { file: join(dir, 'records.jsonl') },
    },
    { ECHO_KEY: KEY },
  );
});
after(async () => {
  await upstream.close();
  await rm(dir, { recursive: true, force: true });
});

interface Received {
  readonly status: number;
  readonly contentLength: string | string[] | undefined;
  readonly body: string;
  /** The first chunk the client received. */
  readonly first: string;
}

async function send(
  gatewayUrl: string,
  fault: string,
  headers: Record<string, string> = {},
): Promise<Received> {
  sent++;
  const response = await request(`${gatewayUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-fault': fault, ...headers },
    // Usage asked for by the client itself: the gateway then removes no event, so it passes bytes as they
    // come rather than whole events, and a split key meets the scrubber in two chunks.
    body: '{"model":"m","stream":true,"stream_options":{"include_usage":true}}',
  });
  const chunks: Buffer[] = [];
  for await (const chunk of response.body as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    if (chunks.length === 1) releaseRest?.();
  }
  releaseRest = null;
  return {
    status: response.statusCode,
    contentLength: response.headers['content-length'],
    body: Buffer.concat(chunks).toString('utf8'),
    first: (chunks[0] ?? Buffer.alloc(0)).toString('utf8'),
  };
}

async function lastRecord(g: TestGateway, count: number): Promise<RequestRecord> {
  const records = await g.recordsAfter(count);
  return records[count - 1] as RequestRecord;
}

/** The client got the error with the key replaced and the rest of its text intact; so did the record. */
function assertScrubbed(got: Received, record: RequestRecord, status: number, outcome: string): void {
  assert.equal(got.status, status);
  assert.ok(!got.body.includes(KEY), got.body);
  assert.match(
    got.body,
    /Incorrect API key provided: Bearer \[redacted\]|forbidden: Bearer \[redacted\] may/,
  );
  assert.equal(record.status, status);
  assert.equal(record.outcome, outcome);
  assert.ok(record.error?.includes(`Bearer ${REDACTED}`), String(record.error));
  assert.ok(!JSON.stringify(record).includes(KEY));
}

test('401 with the key quoted in JSON: redacted for the client and the record, the JSON still whole', async () => {
  const got = await send(gateway.url, 'json-401');
  assertScrubbed(got, await lastRecord(gateway, sent), 401, 'http_error');
  assert.equal(got.contentLength, undefined, 'the upstream declared the unscrubbed length');
  assert.equal((JSON.parse(got.body) as { error: { type: string } }).error.type, 'invalid_request_error');
});

test('403 with the key in plain text: redacted', async () => {
  const got = await send(gateway.url, 'text-403');
  assertScrubbed(got, await lastRecord(gateway, sent), 403, 'http_error');
  assert.equal(got.body, `forbidden: Bearer ${REDACTED} may not use model m`);
});

test('500 with the key split across two writes: no byte of it went out before the rest came', async () => {
  const got = await send(gateway.url, 'split-500');
  assertScrubbed(got, await lastRecord(gateway, sent), 500, 'http_error');
  assert.ok(got.body.startsWith(got.first), got.first);
  assert.ok(got.first.length <= got.body.indexOf(REDACTED), `first chunk: ${got.first}`);
});

test('an error event inside a 200 stream, the key split across two writes: redacted', async () => {
  const got = await send(gateway.url, 'event-200');
  assertScrubbed(got, await lastRecord(gateway, sent), 200, 'upstream_error_body');
  assert.ok(got.body.startsWith(chatChunk({ content: 'hi' })));
  assert.ok(got.first.length <= got.body.indexOf(REDACTED), `first chunk: ${got.first}`);
});

test('a successful stream cut inside the start of a key reaches the client byte-identical', async () => {
  const got = await send(gateway.url, 'ok-200');
  assert.equal(got.status, 200);
  assert.equal(got.body, SUCCESS_WITH_KEY_START);
  assert.equal((await lastRecord(gateway, sent)).outcome, 'ok');
  // The start was held back until the rest showed it was not the key, then passed on as it was.
  assert.ok(got.first.length <= got.body.indexOf(KEY_START), `first chunk: ${got.first}`);
});

test('the key is in no log line, /metrics, or the records file; one record per request', async () => {
  const metrics = await request(`${gateway.url}/metrics`);
  const page = await metrics.body.text();
  assert.equal(metrics.statusCode, 200);
  await closeAndAccount(gateway, sent);
  const file = await readFile(join(dir, 'records.jsonl'), 'utf8');
  assert.equal(file.trim().split('\n').length, sent);
  assert.ok(file.includes(REDACTED));
  for (const [where, text] of [
    ['/metrics', page],
    ['records file', file],
    ['log', gateway.logs.join('\n')],
  ] as const) {
    assert.ok(!text.includes(KEY), `the key is in the ${where}`);
  }
  assert.ok(
    gateway.logs.some((line) => line.includes(REDACTED)),
    'the log line carries the redacted error',
  );
});

// A gateway key never travels upstream (client credentials are removed), so an upstream can only echo one that
// is also an upstream key: an operator who configured the same key for both. It is then scrubbed as that.
test('a gateway key configured the same as the upstream key: the echo is redacted', async () => {
  const shared = await startGateway(
    { upstreams: [{ name: 'hosted', baseUrl: upstream.url, keyEnv: 'ECHO_KEY' }], gatewayKeys: [KEY] },
    { ECHO_KEY: KEY },
  );
  const before = sent;
  const got = await send(shared.url, 'json-401', { authorization: `Bearer ${KEY}` });
  assertScrubbed(got, await lastRecord(shared, 1), 401, 'http_error');
  await closeAndAccount(shared, sent - before);
  assert.ok(!shared.logs.join('\n').includes(KEY));
});
