// The fault matrix, hostile upstreams: answers written to get the gateway's upstream key out, or to break what
// the gateway does with an answer (its framing, its encoding, its size). Each row says how the upstream answers,
// what the client must receive, and the record's outcome; the loop checks for every row that the key appears
// nowhere the client or an operator can read it (the client's status line, headers, body and trailers, the
// record, the log lines) and that there is one record per request (test/reliability/accounting.ts).
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { test } from 'node:test';
import * as zlib from 'node:zlib';
import { request } from 'undici';
import type { TimeoutsInput } from '../../src/gateway/config/config.js';
import type { RequestRecord } from '../../src/gateway/records/record.js';
import { MAX_LIST_BYTES } from '../../src/gateway/request-path/models-list.js';
import type { Outcome } from '../../src/measure/outcome.js';
import { startGateway } from '../gateway/helpers/gateway.js';
import { chatChunk, startUpstream, usageChunk } from '../gateway/helpers/upstream.js';
import { closeAndAccount } from './accounting.js';
import { type CompressedAnswer, type Compression, sendCompressed } from './compressing-upstream.js';

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
  /** The gateway cut the answer (the client's read failed). */
  readonly cut: boolean;
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

// Compressed answers sent although the gateway asked for none (`accept-encoding: identity`), as a CDN may.

const TEN_TOKENS = Array.from({ length: 10 }, (_, i) => chatChunk({ content: `t${i} ` }));
/** Ten tokens, a finish reason, the usage the client asked for, then [DONE]: one flushed part per event. */
const STREAM_PARTS: CompressedAnswer['parts'] = [
  ...TEN_TOKENS.map((data) => ({ atMs: 5, data })),
  { atMs: 5, data: chatChunk({}, 'stop') },
  { atMs: 0, data: usageChunk(7, 10) },
  { atMs: 0, data: 'data: [DONE]\n\n' },
];
const STREAM_TEXT = STREAM_PARTS.map((p) => p.data).join('');
const STREAM_WITH_USAGE: Sent = {
  method: 'POST',
  path: '/v1/chat/completions',
  body: '{"model":"m","stream":true,"stream_options":{"include_usage":true}}',
};
const JSON_ANSWER = JSON.stringify({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1,
  model: 'm',
  choices: [{ index: 0, message: { role: 'assistant', content: 'hello' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 7, completion_tokens: 42, total_tokens: 49 },
});
const CHAT: Sent = { method: 'POST', path: '/v1/chat/completions', body: '{"model":"m"}' };

function compressedStreamRow(compression: Compression): Row {
  return {
    fault: `an SSE stream compressed with ${compression} and flushed per event`,
    upstream: (_req, res) =>
      void sendCompressed(
        res,
        { status: 200, headers: { 'content-type': 'text/event-stream' }, parts: STREAM_PARTS },
        compression,
      ),
    sends: STREAM_WITH_USAGE,
    receives: (got) => {
      assert.equal(got.status, 200);
      assert.equal(got.headers['content-encoding'], undefined, 'the client gets the stream decoded');
      assert.equal(got.body.toString(), STREAM_TEXT);
    },
    outcome: 'ok',
    recorded: (record) => {
      assert.deepEqual(
        { prompt: record.promptTokens, output: record.outputTokens, chunks: record.contentChunks },
        { prompt: 7, output: 10, chunks: 10 },
      );
      assert.ok(record.ttftMs !== null && record.ttftMs > 0, `ttft ${record.ttftMs}`);
    },
  };
}

function compressedJsonRow(compression: Compression): Row {
  return {
    fault: `a JSON answer compressed with ${compression}`,
    upstream: (_req, res) =>
      void sendCompressed(
        res,
        {
          status: 200,
          headers: { 'content-type': 'application/json' },
          parts: [{ atMs: 0, data: JSON_ANSWER }],
        },
        compression,
      ),
    sends: CHAT,
    receives: (got) => {
      assert.equal(got.status, 200);
      assert.equal(got.headers['content-encoding'], undefined);
      assert.equal(got.body.toString(), JSON_ANSWER);
    },
    outcome: 'ok',
    recorded: (record) => assert.deepEqual([record.promptTokens, record.outputTokens], [7, 42]),
  };
}

ROWS.push(
  compressedStreamRow('gzip'),
  compressedStreamRow('br'),
  compressedJsonRow('gzip'),
  compressedJsonRow('br'),
  compressedJsonRow('deflate'),
  compressedJsonRow('deflate-raw'),
  {
    fault: 'a gzip 401 quoting the key',
    upstream: (req, res) =>
      void sendCompressed(
        res,
        {
          status: 401,
          headers: { 'content-type': 'application/json' },
          parts: [
            {
              atMs: 0,
              data: JSON.stringify({
                error: {
                  message: `Incorrect API key provided: ${req.headers.authorization}`,
                  type: 'invalid_request_error',
                },
              }),
            },
          ],
        },
        'gzip',
      ),
    sends: CHAT,
    receives: (got) => {
      assert.equal(got.status, 401);
      assert.equal(
        JSON.parse(got.body.toString()).error.message,
        'Incorrect API key provided: Bearer [redacted]',
      );
    },
    outcome: 'http_error',
    recorded: (record) =>
      assert.equal(
        record.error?.includes('Incorrect API key provided: Bearer [redacted]'),
        true,
        String(record.error),
      ),
  },
  {
    fault: 'a body labelled gzip that is not gzip',
    upstream: (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end('this is not gzip at all');
    },
    sends: CHAT,
    receives: (got) => {
      assert.equal(got.status, 200);
      assert.equal(got.cut, true, 'the answer is cut, so the client cannot take it for a whole one');
      assert.equal(got.body.length, 0, 'nothing undecodable is passed on');
    },
    outcome: 'truncated',
  },
);

// Encodings past one gzip, deflate or br: a stack of codings is decoded whole, and what cannot be decoded is
// answered 502 by the gateway, never passed on undecoded (its bytes could carry the key past the scrubber to a
// client that decodes them, as Node's fetch decodes `gzip, gzip`).

/** A 401 quoting the key the upstream got, as OpenAI's answer to a wrong key does. */
function keyQuotingError(req: IncomingMessage): string {
  return JSON.stringify({
    error: {
      message: `Incorrect API key provided: ${req.headers.authorization}`,
      type: 'invalid_request_error',
    },
  });
}

function quotesTheKeyRedacted(got: Received): void {
  assert.equal(got.status, 401);
  assert.equal(got.headers['content-encoding'], undefined, 'the client gets the answer decoded');
  assert.equal(
    JSON.parse(got.body.toString()).error.message,
    'Incorrect API key provided: Bearer [redacted]',
  );
}

function refusedAsUndecodable(named: RegExp): Pick<Row, 'receives' | 'outcome' | 'recorded'> {
  return {
    receives: (got) => {
      assert.equal(got.status, 502);
      assert.equal(got.headers['content-encoding'], undefined);
      assert.equal(JSON.parse(got.body.toString()).error.code, 'upstream_bad_response');
    },
    outcome: 'upstream_unreachable',
    recorded: (record) => assert.match(String(record.error), named),
  };
}

/** zstd's compressor, on the Node versions that have one (22.15 and later). */
const zstdCompressSync = (zlib as unknown as { zstdCompressSync?: (text: string) => Buffer })
  .zstdCompressSync;

ROWS.push(
  {
    fault: 'a 401 quoting the key, gzipped twice (`gzip, gzip`)',
    upstream: (req, res) => {
      res.writeHead(401, { 'content-type': 'application/json', 'content-encoding': 'gzip, gzip' });
      res.end(zlib.gzipSync(zlib.gzipSync(keyQuotingError(req))));
    },
    sends: CHAT,
    receives: quotesTheKeyRedacted,
    outcome: 'http_error',
    recorded: (record) => assert.match(String(record.error), /Bearer \[redacted\]/),
  },
  {
    fault: 'a JSON answer gzipped twice, labelled by two Content-Encoding header lines',
    upstream: (_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.setHeader('content-encoding', ['gzip', 'gzip']);
      res.end(zlib.gzipSync(zlib.gzipSync(JSON_ANSWER)));
    },
    sends: CHAT,
    receives: (got) => {
      assert.equal(got.status, 200);
      assert.equal(got.headers['content-encoding'], undefined);
      assert.equal(got.body.toString(), JSON_ANSWER);
    },
    outcome: 'ok',
    recorded: (record) => assert.deepEqual([record.promptTokens, record.outputTokens], [7, 42]),
  },
  {
    fault: 'an SSE stream labelled `identity, gzip`',
    upstream: (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': 'identity, gzip' });
      res.end(zlib.gzipSync(STREAM_TEXT));
    },
    sends: STREAM_WITH_USAGE,
    receives: (got) => {
      assert.equal(got.status, 200);
      assert.equal(got.headers['content-encoding'], undefined);
      assert.equal(got.body.toString(), STREAM_TEXT);
    },
    outcome: 'ok',
    recorded: (record) =>
      assert.deepEqual([record.promptTokens, record.outputTokens, record.contentChunks], [7, 10, 10]),
  },
  zstdCompressSync === undefined
    ? {
        fault: `a 401 quoting the key, labelled zstd, on a Node without zstd (${process.version}): refused`,
        upstream: (req, res) => {
          res.writeHead(401, { 'content-type': 'application/json', 'content-encoding': 'zstd' });
          res.end(keyQuotingError(req));
        },
        sends: CHAT,
        ...refusedAsUndecodable(/Content-Encoding 'zstd'.*no zstd decoder/),
      }
    : {
        fault: `a 401 quoting the key, compressed with zstd (${process.version} decodes it)`,
        upstream: (req, res) => {
          res.writeHead(401, { 'content-type': 'application/json', 'content-encoding': 'zstd' });
          res.end(zstdCompressSync(keyQuotingError(req)));
        },
        sends: CHAT,
        receives: quotesTheKeyRedacted,
        outcome: 'http_error',
        recorded: (record) => assert.match(String(record.error), /Bearer \[redacted\]/),
      },
  {
    // Unix compress (LZW): no decoder in Node. The body is the plain text, as a hostile upstream may send it.
    fault: 'a 401 quoting the key, labelled `compress`',
    upstream: (req, res) => {
      res.writeHead(401, { 'content-type': 'application/json', 'content-encoding': 'compress' });
      res.end(keyQuotingError(req));
    },
    sends: CHAT,
    ...refusedAsUndecodable(/Content-Encoding 'compress' the gateway cannot decode/),
  },
  {
    fault: 'a stream whose Content-Encoding is the key itself, after a gzip',
    upstream: (req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': `gzip, ${KEY}` });
      res.end(zlib.gzipSync(`data: {"echo":"${req.headers.authorization}"}\n\n${STREAM}`));
    },
    ...refusedAsUndecodable(/answered in a Content-Encoding the gateway cannot decode/),
  },
);

// An error object nested 10,000 deep (60 KB, well within one SSE event's bound): JSON.parse takes it (V8's is
// iterative), but JSON.stringify recurses and gives out about there. The gateway must still answer and record.
const DEEP = 10_000;
const DEEP_ERROR = `{"error":${'{"a":'.repeat(DEEP)}"${KEY}"${'}'.repeat(DEEP)}}`;

function deepErrorRecorded(record: RequestRecord): void {
  assert.match(
    String(record.error),
    /^\{"(type":"error",")?error":\{"a":\{"a":/,
    'the raw JSON, cut at the bound',
  );
  assert.ok(String(record.error).length <= 2000, `${String(record.error).length} chars`);
}

ROWS.push(
  {
    fault: `a 200 stream whose error event nests ${DEEP} deep`,
    upstream: (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`${chatChunk({ content: 'hi' })}data: ${DEEP_ERROR}\n\n`);
    },
    receives: (got) => {
      assert.equal(got.status, 200);
      assert.equal(got.cut, false);
      assert.ok(got.body.toString().endsWith(`"[redacted]"${'}'.repeat(DEEP + 1)}\n\n`));
    },
    outcome: 'upstream_error_body',
    recorded: deepErrorRecorded,
  },
  {
    fault: `a 200 JSON answer whose error object nests ${DEEP} deep`,
    upstream: (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(DEEP_ERROR);
    },
    sends: CHAT,
    receives: (got) => {
      assert.equal(got.status, 200);
      assert.equal(got.body.length, Buffer.byteLength(DEEP_ERROR.replace(KEY, '[redacted]')));
    },
    outcome: 'upstream_error_body',
    recorded: deepErrorRecorded,
  },
  {
    fault: `an Anthropic Messages stream whose error event nests ${DEEP} deep`,
    upstream: (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`event: error\ndata: ${DEEP_ERROR.replace('{"error":', '{"type":"error","error":')}\n\n`);
    },
    sends: { method: 'POST', path: '/v1/messages', body: '{"model":"m","stream":true,"max_tokens":5}' },
    receives: (got) => assert.equal(got.status, 200),
    outcome: 'upstream_error_body',
    recorded: deepErrorRecorded,
  },
  {
    fault: `a Responses stream whose error event nests ${DEEP} deep`,
    upstream: (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`event: error\ndata: {"type":"error","detail":${DEEP_ERROR}}\n\n`);
    },
    sends: { method: 'POST', path: '/v1/responses', body: '{"model":"m","stream":true}' },
    receives: (got) => assert.equal(got.status, 200),
    outcome: 'upstream_error_body',
    recorded: (record) => {
      assert.match(String(record.error), /^\{"type":"error","detail":\{"error":\{"a":/);
      assert.ok(String(record.error).length <= 2000);
    },
  },
);

// Informational answers before the final one (RFC 9110 15.2): never the answer.
ROWS.push(
  {
    fault: 'a 103 Early Hints before the stream',
    upstream: (_req, res) => {
      res.writeEarlyHints({ link: '</style.css>; rel=preload; as=style' });
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(STREAM);
    },
    receives: (got) => {
      assert.equal(got.status, 200);
      assert.equal(got.headers['link'], undefined, 'the hints are dropped, not merged into the answer');
      assert.equal(got.body.toString(), STREAM);
    },
    outcome: 'ok',
  },
  {
    fault: 'a 102 Processing, then a 103, before a JSON answer',
    upstream: (_req, res) => {
      res.writeProcessing();
      res.writeEarlyHints({ link: '</a.js>; rel=preload; as=script' });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON_ANSWER);
    },
    sends: CHAT,
    receives: (got) => {
      assert.equal(got.status, 200);
      assert.equal(got.body.toString(), JSON_ANSWER);
    },
    outcome: 'ok',
    recorded: (record) => assert.deepEqual([record.promptTokens, record.outputTokens], [7, 42]),
  },
  {
    // undici 7 destroys a connection on a 100 it did not ask for (it sends no `Expect`); the gateway's upstream
    // sockets drop it (src/gateway/exchange/upstream-dispatcher.ts), here in the same read as the answer. A 502
    // before.
    fault: 'an unsolicited 100 Continue',
    upstream: (_req, res) => {
      res.writeContinue();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(STREAM);
    },
    receives: (got) => {
      assert.equal(got.status, 200);
      assert.equal(got.body.toString(), STREAM);
    },
    outcome: 'ok',
  },
);

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
      // What the OpenAI SDK sends by default, and more: the gateway must not pass it on.
      headers: { 'content-type': 'application/json', 'accept-encoding': 'gzip, deflate, br' },
      ...(sends.body === undefined ? {} : { body: sends.body }),
    });
    const chunks: Buffer[] = [];
    let cut = false;
    try {
      for await (const chunk of response.body) chunks.push(chunk as Buffer);
    } catch {
      cut = true;
    }
    const body = Buffer.concat(chunks);
    const got: Received = {
      status: response.statusCode,
      headers: response.headers,
      trailers: response.trailers,
      body,
      cut,
    };
    // In the header its protocol takes: `authorization` for OpenAI's, `x-api-key` for Anthropic's.
    const sentKey = upstream.requests[0]?.headers;
    assert.ok(
      sentKey?.authorization === `Bearer ${KEY}` || sentKey?.['x-api-key'] === KEY,
      'the upstream got the key',
    );
    assert.equal(
      upstream.requests[0]?.headers['accept-encoding'],
      'identity',
      'the gateway asks for no compression',
    );
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

test('the aggregated model list: an upstream listing the key (gzip) is scrubbed, one without end is cut at the bound', async (t) => {
  const listing = await startUpstream(
    (_req, res) =>
      void sendCompressed(
        res,
        {
          status: 200,
          headers: { 'content-type': 'application/json' },
          parts: [
            {
              atMs: 0,
              data: JSON.stringify({
                object: 'list',
                data: [
                  { id: KEY, object: 'model', owned_by: 'x' },
                  { id: 'real-model', object: 'model', owned_by: 'x' },
                ],
              }),
            },
          ],
        },
        'gzip',
      ),
  );
  t.after(() => listing.close());
  let endlessWritten = 0;
  const endless = await startUpstream(async (_req, res) => {
    // A list that never ends: `{"data":[` then model entries, as fast as the gateway reads them.
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"object":"list","data":[');
    const entry = Buffer.from(
      `${JSON.stringify({ id: 'm'.repeat(1000), object: 'model', owned_by: 'x' })},`.repeat(64),
    );
    while (!res.destroyed) {
      endlessWritten += entry.length;
      if (!res.write(entry))
        await new Promise((resolve) => res.once('drain', resolve).once('close', resolve));
    }
  });
  t.after(() => endless.close());
  const gateway = await startGateway(
    {
      upstreams: [
        { name: 'listing', baseUrl: listing.url, keyEnv: 'HOSTILE_KEY', models: ['alias-a'] },
        { name: 'endless', baseUrl: endless.url, keyless: true, models: ['alias-b'] },
      ],
    },
    { HOSTILE_KEY: KEY },
  );
  t.after(() => gateway.close());
  const CONCURRENT = 4;
  const answers = await Promise.all(
    Array.from({ length: CONCURRENT }, async () => {
      const response = await request(`${gateway.url}/v1/models`, { headers: { 'accept-encoding': 'gzip' } });
      return { status: response.statusCode, text: await response.body.text() };
    }),
  );
  for (const answer of answers) {
    assert.equal(answer.status, 200);
    assert.ok(!answer.text.includes(KEY), answer.text.slice(0, 300));
    const ids = (JSON.parse(answer.text) as { data: { id: string }[] }).data.map((m) => m.id);
    assert.deepEqual(ids, ['[redacted]', 'real-model', 'alias-a', 'alias-b'], 'the endless list is left out');
  }
  // Each of the endless upstream's answers was read to the bound and no further (plus what the sockets held).
  t.diagnostic(
    `the endless upstream wrote ${(endlessWritten / 2 ** 20).toFixed(1)} MiB for ${CONCURRENT} lists`,
  );
  assert.ok(endlessWritten < CONCURRENT * (MAX_LIST_BYTES + 8 * 2 ** 20), `${endlessWritten} bytes written`);
  const records = await closeAndAccount(gateway, CONCURRENT);
  assert.deepEqual(new Set(records.map((r) => `${r.outcome} ${r.status}`)), new Set(['ok 200']));
});

test('a body gzipped twice that inflates to 64 MiB reaches the client whole, each decoder waiting on the next', async (t) => {
  const INFLATED = 64 * 2 ** 20;
  const bomb = zlib.gzipSync(zlib.gzipSync(Buffer.alloc(INFLATED)));
  t.diagnostic(`${bomb.length} bytes on the wire`);
  const upstream = await startUpstream((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-encoding': 'gzip, gzip' });
    res.end(bomb);
  });
  t.after(() => upstream.close());
  const gateway = await startGateway(
    { upstreams: [{ name: 'u', baseUrl: upstream.url, keyEnv: 'HOSTILE_KEY', timeouts: BACKSTOP_TIMEOUTS }] },
    { HOSTILE_KEY: KEY },
  );
  t.after(() => gateway.close());
  const response = await request(`${gateway.url}/v1/files/f/content`);
  assert.equal(response.statusCode, 200);
  assert.equal(response.headers['content-encoding'], undefined);
  let received = 0;
  /** Chunks holding anything but the zeros that were compressed. */
  let nonZero = 0;
  for await (const chunk of response.body) {
    const bytes = chunk as Buffer;
    received += bytes.length;
    if (!bytes.equals(Buffer.alloc(bytes.length))) nonZero++;
  }
  assert.equal(received, INFLATED);
  assert.equal(nonZero, 0, 'every byte is the body decoded twice');
  const [record] = await closeAndAccount(gateway, 1);
  assert.equal(record?.outcome, 'ok');
});
