// The fault matrix, hostile upstreams: answers written to get the gateway's upstream key out, or to break what
// the gateway does with an answer (its framing, its encoding, its size). Each row says how the upstream answers,
// what the client must receive, and the record's outcome; the loop checks for every row that the key appears
// nowhere the client or an operator can read it (the client's status line, headers, body and trailers, the
// record, the log lines) and that there is one record per request (test/reliability/accounting.ts).
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { test } from 'node:test';
import { request } from 'undici';
import type { TimeoutsInput } from '../../src/gateway/config.js';
import type { RequestRecord } from '../../src/gateway/record.js';
import type { Outcome } from '../../src/measure/outcome.js';
import { startGateway } from '../gateway/helpers/gateway.js';
import { chatChunk, startUpstream } from '../gateway/helpers/upstream.js';
import { closeAndAccount } from './accounting.js';

/** Made-up, long enough to be scrubbed; not a real key's shape. */
const KEY = 'sk-hostile-upstream-4fQ9zL2mW7';

const BACKSTOP_TIMEOUTS: Required<TimeoutsInput> = {
  connectMs: 2000,
  headersMs: 2000,
  idleMs: 2000,
  totalMs: 10_000,
};

const STREAM = `${chatChunk({ content: 'hi' })}${chatChunk({}, 'stop')}data: [DONE]\n\n`;
const ERROR_JSON = JSON.stringify({
  error: { message: 'Incorrect API key provided', type: 'invalid_request_error' },
});

/** Every header an upstream has been seen to put a credential in, each holding the key. */
function keyHeaders(key: string): Record<string, string | string[]> {
  return {
    'www-authenticate': `Bearer realm="api", error="invalid_token", token="${key}"`,
    'x-echo-key': key,
    'set-cookie': [`k=${key}; Path=/`, 'other=1'],
    [`x-${key}`]: 'a header named after the key',
  };
}

interface Sent {
  readonly method: string;
  readonly path: string;
  readonly body?: string;
}

const STREAMED_CHAT: Sent = {
  method: 'POST',
  path: '/v1/chat/completions',
  body: '{"model":"m","stream":true}',
};

interface Received {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly trailers: Record<string, string | string[] | undefined>;
  readonly body: Buffer;
}

interface Row {
  readonly fault: string;
  readonly upstream: (req: IncomingMessage, res: ServerResponse) => void;
  readonly sends?: Sent;
  /** What the client must have received, beyond the key being nowhere in it. */
  readonly receives: (got: Received) => void;
  readonly outcome: Outcome;
  /** More of the record than its outcome. */
  readonly recorded?: (record: RequestRecord) => void;
}

const ROWS: Row[] = [
  {
    fault: 'a 401 whose headers echo the key (WWW-Authenticate, a custom header, Set-Cookie, a header name)',
    upstream: (_req, res) => {
      res.writeHead(401, { 'content-type': 'application/json', ...keyHeaders(KEY) });
      res.end(ERROR_JSON);
    },
    sends: STREAMED_CHAT,
    receives: (got) => {
      assert.equal(got.status, 401);
      assert.equal(
        got.headers['www-authenticate'],
        'Bearer realm="api", error="invalid_token", token="[redacted]"',
      );
      assert.equal(got.headers['x-echo-key'], '[redacted]');
      assert.deepEqual(got.headers['set-cookie'], ['k=[redacted]; Path=/', 'other=1']);
      assert.equal(JSON.parse(got.body.toString()).error.type, 'invalid_request_error');
    },
    outcome: 'http_error',
  },
  {
    fault: 'a 200 stream whose headers echo the key',
    upstream: (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', ...keyHeaders(KEY) });
      res.end(STREAM);
    },
    sends: STREAMED_CHAT,
    receives: (got) => {
      assert.equal(got.status, 200);
      assert.equal(got.headers['x-echo-key'], '[redacted]');
      assert.equal(got.body.toString(), STREAM);
    },
    outcome: 'ok',
  },
  {
    fault: 'a 200 stream with the key in its trailers',
    upstream: (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', trailer: 'x-echo-key' });
      res.write(STREAM);
      res.addTrailers({ 'x-echo-key': KEY });
      res.end();
    },
    sends: STREAMED_CHAT,
    receives: (got) => {
      assert.equal(got.status, 200);
      assert.deepEqual(got.trailers, {}, 'trailers are not forwarded');
      assert.equal(got.body.toString(), STREAM);
    },
    outcome: 'ok',
  },
  {
    fault: 'a 200 answer with a declared length whose body quotes the key (JSON-escaped and URL-encoded too)',
    upstream: (_req, res) => {
      const body = JSON.stringify({
        object: 'list',
        data: [{ id: KEY }, { id: `https://x.example/?k=${KEY}` }],
      });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    },
    sends: { method: 'GET', path: '/v1/models' },
    receives: (got) => {
      assert.equal(got.status, 200);
      assert.equal(got.headers['content-length'], undefined, 'the unscrubbed length is not passed on');
      assert.deepEqual(JSON.parse(got.body.toString()).data, [
        { id: '[redacted]' },
        { id: 'https://x.example/?k=[redacted]' },
      ]);
    },
    outcome: 'ok',
  },
];

for (const row of ROWS) {
  test(`${row.fault}: the key reaches neither the client nor the record; recorded ${row.outcome}`, async (t) => {
    const upstream = await startUpstream((req, res) => row.upstream(req, res));
    t.after(() => upstream.close());
    const gateway = await startGateway(
      {
        upstreams: [{ name: 'u', baseUrl: upstream.url, keyEnv: 'HOSTILE_KEY', timeouts: BACKSTOP_TIMEOUTS }],
      },
      { HOSTILE_KEY: KEY },
    );
    t.after(() => gateway.close());
    const sends = row.sends ?? STREAMED_CHAT;
    const response = await request(`${gateway.url}${sends.path}`, {
      method: sends.method,
      headers: { 'content-type': 'application/json' },
      ...(sends.body === undefined ? {} : { body: sends.body }),
    });
    const body = Buffer.from(await response.body.arrayBuffer());
    const got: Received = {
      status: response.statusCode,
      headers: response.headers,
      trailers: response.trailers,
      body,
    };
    assert.equal(upstream.requests[0]?.headers.authorization, `Bearer ${KEY}`, 'the upstream got the key');
    const [record] = await closeAndAccount(gateway, 1);
    for (const [where, text] of [
      ['headers', JSON.stringify(got.headers)],
      ['trailers', JSON.stringify(got.trailers)],
      ['body', body.toString('latin1')],
      ['record', JSON.stringify(record)],
      ['log', gateway.logs.join('\n')],
    ] as const) {
      assert.ok(!text.includes(KEY), `the key is in the client's ${where}: ${text.slice(0, 400)}`);
    }
    row.receives(got);
    assert.equal(record?.outcome, row.outcome, `outcome (error: ${record?.error})`);
    assert.equal(record?.status, got.status, "the record's status is the client's");
    row.recorded?.(record as RequestRecord);
  });
}
