// The fault matrix, upstream side: one row per way an upstream can fail a streamed (or plain) chat request, each
// against its own gateway. A row says how the upstream misbehaves, what the client must receive, and the record's
// outcome; one loop runs them all and checks, for every row, that the record's status is the client's and that
// the gateway wrote exactly one record (test/reliability/accounting.ts).
//
// The deadline a row is about is small, so every row takes about a second at most: undici runs its connect,
// headers and body deadlines on its own coarse clock, which fired the 300 ms ones after 0.6-1.0 s on the 2-core
// development box (the total deadline is the gateway's own timer and fires on time).
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { test } from 'node:test';
import { request } from 'undici';
import type { TimeoutsInput } from '../../src/gateway/config/config.js';
import type { RequestRecord } from '../../src/gateway/records/record.js';
import type { Outcome } from '../../src/measure/outcome.js';
import { STREAM_CUT_COMMENT } from '../../src/shared/package-version.js';
import { DEFAULT_MAX_EVENT_BYTES } from '../../src/sse/sse-parser.js';
import { startGateway } from '../gateway/helpers/gateway.js';
import { chatChunk } from '../gateway/helpers/upstream.js';
import { closeAndAccount } from './accounting.js';
import { type Script, type ScriptedUpstream, startScriptedUpstream } from './scripted-upstream.js';
import { refusingPort, startUnacceptingListener } from './unreachable-upstreams.js';

/** The deadline a row is about. */
const FAULT_DEADLINE_MS = 300;
/** Every other deadline: far enough not to fire first, near enough that a hung row fails in seconds. */
const BACKSTOP_TIMEOUTS: Required<TimeoutsInput> = {
  connectMs: 2000,
  headersMs: 2000,
  idleMs: 2000,
  totalMs: 4000,
};

const SSE = { 'content-type': 'text/event-stream' } as const;
const JSON_TYPE = { 'content-type': 'application/json' } as const;
const DONE = 'data: [DONE]\n\n';
const FINISH = chatChunk({}, 'stop');

/** Where the gateway is pointed: an upstream that answers by script, or one that cannot be reached. */
type UpstreamFault =
  | { readonly script: Script }
  | { readonly unreachable: 'nothing listening' | 'never accepts' };

/** What the client must receive. */
type ClientSees =
  /** The upstream's status, the named headers unchanged, and its body byte for byte, then a clean end. */
  | { readonly sees: 'upstream answer'; readonly status: number; readonly headers?: Record<string, string> }
  /** The upstream's status and part of its body, then a cut: never a clean end it could take for a whole answer. */
  | { readonly sees: 'cut stream'; readonly status: number }
  /** The gateway's own error, in OpenAI's format. */
  | {
      readonly sees: 'gateway error';
      readonly status: number;
      readonly code: string;
      readonly message: RegExp;
    };

type RecordFields = Partial<
  Pick<
    RequestRecord,
    'finishReason' | 'contentChunks' | 'sseOverflow' | 'outputTokens' | 'outputTokensSource' | 'error'
  >
>;

interface Row {
  readonly fault: string;
  readonly upstream: UpstreamFault;
  readonly timeouts?: TimeoutsInput;
  /** Whether the client asks for a stream (default) or a plain JSON answer. */
  readonly stream?: false;
  readonly client: ClientSees;
  readonly outcome: Outcome;
  /** Record fields that must hold these exact values. */
  readonly record?: RecordFields;
  /** What the record's error (the reason it is not ok) must say. */
  readonly error?: RegExp;
  readonly hint?: RegExp;
  /** A known gateway bug this row exposes: the row runs and reports, without failing the suite. */
  readonly todo?: string;
}

const UPSTREAM = "upstream 'faulty' at http://127\\.0\\.0\\.1:\\d+";

const TEN_MB_EVENT = chatChunk({ content: 'x'.repeat(10 * 1024 * 1024) });
assert.ok(TEN_MB_EVENT.length > DEFAULT_MAX_EVENT_BYTES, 'the event outgrows the parser bound');

/**
 * Content whose multi-byte characters are each cut inside, at every byte. Token count by the built-in rule
 * (src/shared/token-estimate.ts): 'héllo', '世', '界', '🌍', 'naïve' = 5. A character decoded per piece would
 * become replacement characters, each a token of its own ('h', '\uFFFD', '\uFFFD', 'llo'...), so the count moves.
 */
const MULTI_BYTE_CONTENT = ['héllo', ' 世界', ' 🌍', ' naïve'];
const MULTI_BYTE_TOKENS = 5;

/** The bytes of `text` as pieces: runs of one-byte characters whole, each multi-byte character byte by byte. */
function cutInsideCharacters(text: string): Buffer[] {
  const pieces: Buffer[] = [];
  let run = '';
  for (const character of text) {
    const bytes = Buffer.from(character);
    if (bytes.length === 1) {
      run += character;
      continue;
    }
    if (run !== '') pieces.push(Buffer.from(run));
    run = '';
    for (const byte of bytes) pieces.push(Buffer.of(byte));
  }
  if (run !== '') pieces.push(Buffer.from(run));
  return pieces;
}

const ROWS: readonly Row[] = [
  {
    fault: 'refused: nothing listening',
    upstream: { unreachable: 'nothing listening' },
    client: {
      sees: 'gateway error',
      status: 502,
      code: 'upstream_refused',
      message: new RegExp(`^${UPSTREAM} refused the connection: is it running\\?$`),
    },
    outcome: 'upstream_unreachable',
  },
  {
    fault: 'connect timeout: a listener that never accepts',
    upstream: { unreachable: 'never accepts' },
    timeouts: { connectMs: FAULT_DEADLINE_MS },
    client: {
      sees: 'gateway error',
      status: 504,
      code: 'upstream_connect_timeout',
      message: new RegExp(`^${UPSTREAM} did not accept a connection in time: is the host reachable\\?$`),
    },
    outcome: 'upstream_timeout',
  },
  {
    fault: 'headers timeout: connected, then silence',
    upstream: { script: { steps: [], ending: 'stall' } },
    timeouts: { headersMs: FAULT_DEADLINE_MS },
    client: {
      sees: 'gateway error',
      status: 504,
      code: 'upstream_headers_timeout',
      message: new RegExp(`^${UPSTREAM} did not answer in time: .* raise timeouts\\.headersMs$`),
    },
    outcome: 'upstream_timeout',
  },
  {
    fault: 'total timeout before the headers',
    upstream: { script: { steps: [], ending: 'stall' } },
    timeouts: { totalMs: FAULT_DEADLINE_MS },
    client: {
      sees: 'gateway error',
      status: 504,
      code: 'upstream_total_timeout',
      message: new RegExp(
        `^${UPSTREAM} did not finish within timeouts\\.totalMs; raise it for long generations$`,
      ),
    },
    outcome: 'upstream_timeout',
  },
  {
    fault: 'reset before any answer',
    upstream: { script: { steps: [], ending: 'reset' } },
    client: {
      sees: 'gateway error',
      status: 502,
      code: 'upstream_reset',
      message: new RegExp(`^${UPSTREAM} closed the connection before answering; check its logs$`),
    },
    outcome: 'upstream_unreachable',
  },
  {
    fault: 'reset mid-stream',
    upstream: {
      script: {
        steps: [{ head: 200, headers: SSE }, { write: chatChunk({ content: 'half' }) }],
        ending: 'reset',
      },
    },
    client: { sees: 'cut stream', status: 200 },
    outcome: 'truncated',
    error: /^upstream 'faulty' broke off the response \(\w+\)$/,
  },
  {
    fault: 'stall mid-stream: the idle timeout',
    upstream: {
      script: {
        steps: [{ head: 200, headers: SSE }, { write: chatChunk({ content: 'first' }) }],
        ending: 'stall',
      },
    },
    timeouts: { idleMs: FAULT_DEADLINE_MS },
    client: { sees: 'cut stream', status: 200 },
    outcome: 'upstream_timeout',
    record: { contentChunks: 1 },
    error: /sent nothing for 300 ms mid-response \(timeouts\.idleMs\); the stream was cut$/,
  },
  {
    fault: 'total timeout mid-stream: a stream that keeps trickling',
    upstream: {
      script: {
        steps: [{ head: 200, headers: SSE }, { write: chatChunk({ content: 'first' }) }],
        ending: 'trickle',
      },
    },
    timeouts: { totalMs: FAULT_DEADLINE_MS },
    client: { sees: 'cut stream', status: 200 },
    outcome: 'upstream_timeout',
    error: /did not finish within timeouts\.totalMs; the stream was cut$/,
  },
  {
    fault: '5xx with a JSON error',
    upstream: {
      script: {
        steps: [
          { head: 500, headers: JSON_TYPE },
          { write: '{"error":{"message":"CUDA out of memory","type":"InternalServerError","code":500}}' },
        ],
        ending: 'end',
      },
    },
    client: { sees: 'upstream answer', status: 500 },
    outcome: 'http_error',
    error: /CUDA out of memory/,
  },
  {
    fault: '429 with Retry-After',
    upstream: {
      script: {
        steps: [
          { head: 429, headers: { ...JSON_TYPE, 'retry-after': '7' } },
          { write: '{"error":{"message":"slow down","type":"rate_limit","code":429}}' },
        ],
        ending: 'end',
      },
    },
    client: { sees: 'upstream answer', status: 429, headers: { 'retry-after': '7' } },
    outcome: 'http_error',
    error: /slow down/,
    hint: /rate limited: lower the request rate/,
  },
  {
    fault: '200 with an error JSON body',
    upstream: {
      script: {
        steps: [
          { head: 200, headers: JSON_TYPE },
          { write: '{"object":"error","message":"context too long","code":400}' },
        ],
        ending: 'end',
      },
    },
    stream: false,
    client: { sees: 'upstream answer', status: 200 },
    outcome: 'upstream_error_body',
    record: { error: 'context too long' },
  },
  {
    fault: '200 stream with an error event after some content',
    upstream: {
      script: {
        steps: [
          { head: 200, headers: SSE },
          { write: chatChunk({ content: 'hi' }) },
          { write: 'data: {"error":{"message":"model overloaded","code":503}}\n\n' },
          { write: DONE },
        ],
        ending: 'end',
      },
    },
    client: { sees: 'upstream answer', status: 200 },
    outcome: 'upstream_error_body',
    record: { error: 'model overloaded' },
  },
  {
    fault: '200 stream with an SSE event named error',
    upstream: {
      script: {
        steps: [
          { head: 200, headers: SSE },
          {
            write:
              'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"busy"}}\n\n',
          },
        ],
        ending: 'end',
      },
    },
    client: { sees: 'upstream answer', status: 200 },
    outcome: 'upstream_error_body',
    record: { error: 'busy' },
  },
  {
    fault: 'malformed SSE between good events',
    upstream: {
      script: {
        steps: [
          { head: 200, headers: SSE },
          { write: chatChunk({ content: 'hi' }) },
          { write: 'data: {"choices":[{"delta":{"content":\n\n' },
          { write: 'a line without a colon\n\n' },
          { write: 'data\n\nevent: \ndata: [DON\n\n\r\r' },
          { write: 'data: {"choices":"not a list"}\n\n' },
          { write: FINISH },
          { write: DONE },
        ],
        ending: 'end',
      },
    },
    client: { sees: 'upstream answer', status: 200 },
    outcome: 'ok',
    record: { contentChunks: 1, finishReason: 'stop', error: null },
  },
  {
    fault: 'a 200 "stream" that is not SSE at all',
    upstream: {
      script: {
        steps: [{ head: 200, headers: SSE }, { write: '<html><body>502 Bad Gateway</body></html>\n' }],
        ending: 'end',
      },
    },
    client: { sees: 'upstream answer', status: 200 },
    outcome: 'upstream_error_body',
    error: /no chunk carried generated text/,
  },
  // Interim answers nobody asked for (RFC 9110 15.2: parsed and ignored). undici destroyed the socket on a 100
  // (a 502 before src/gateway/exchange/upstream-dispatcher.ts); 102 and 103 it passes to the handler, which ignores
  // them.
  ...([100, 102, 103] as const).flatMap((interim): Row[] => [
    {
      fault: `an unsolicited ${interim} before a streamed answer`,
      upstream: {
        script: {
          steps: [
            { interim },
            { head: 200, headers: SSE },
            { write: chatChunk({ content: 'hi' }) },
            { write: FINISH },
            { write: DONE },
          ],
          ending: 'end',
        },
      },
      client: { sees: 'upstream answer', status: 200 },
      outcome: 'ok',
      record: { contentChunks: 1, finishReason: 'stop' },
    },
    {
      fault: `two unsolicited ${interim}s before a plain answer`,
      upstream: {
        script: {
          steps: [
            { interim },
            { interim },
            { head: 200, headers: JSON_TYPE },
            {
              write:
                '{"choices":[{"message":{"content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1}}',
            },
          ],
          ending: 'end',
        },
      },
      stream: false,
      client: { sees: 'upstream answer', status: 200 },
      outcome: 'ok',
      record: { outputTokens: 1, finishReason: 'stop' },
    },
  ]),
  // The same contents answered plain: one rule for both framings (src/measure/stream-outcome.ts's answerOutcome).
  {
    fault: 'a 200 HTML page answering a plain request',
    upstream: {
      script: {
        steps: [
          { head: 200, headers: { 'content-type': 'text/html' } },
          { write: '<html><body>sign in</body></html>' },
        ],
        ending: 'end',
      },
    },
    stream: false,
    client: { sees: 'upstream answer', status: 200 },
    outcome: 'upstream_error_body',
    error: /^HTTP 200 but a body that is not a JSON object instead of an answer$/,
  },
  {
    fault: 'a plain 200 answer with choices: []',
    upstream: {
      script: {
        steps: [
          { head: 200, headers: JSON_TYPE },
          { write: '{"id":"c","object":"chat.completion","choices":[],"usage":null}' },
        ],
        ending: 'end',
      },
    },
    stream: false,
    client: { sees: 'upstream answer', status: 200 },
    outcome: 'upstream_error_body',
    error: /an empty `choices`/,
  },
  {
    fault: 'a streamed answer with choices: [] in every chunk',
    upstream: {
      script: {
        steps: [
          { head: 200, headers: SSE },
          { write: 'data: {"id":"c","object":"chat.completion.chunk","choices":[]}\n\n' },
          { write: DONE },
        ],
        ending: 'end',
      },
    },
    client: { sees: 'upstream answer', status: 200 },
    outcome: 'upstream_error_body',
    error: /no chunk carried generated text/,
  },
  {
    fault: 'a 204 answering a plain request',
    upstream: { script: { steps: [{ head: 204 }], ending: 'end' } },
    stream: false,
    client: { sees: 'upstream answer', status: 204 },
    outcome: 'upstream_error_body',
    error: /an empty body/,
  },
  {
    fault: 'an empty 200 answering a plain request',
    upstream: { script: { steps: [{ head: 200, headers: JSON_TYPE }], ending: 'end' } },
    stream: false,
    client: { sees: 'upstream answer', status: 200 },
    outcome: 'upstream_error_body',
    error: /an empty body/,
  },
  {
    fault: 'an empty 200 answering a streamed request',
    upstream: { script: { steps: [{ head: 200, headers: SSE }], ending: 'end' } },
    client: { sees: 'upstream answer', status: 200 },
    outcome: 'upstream_error_body',
    error: /no chunk carried generated text/,
  },
  {
    fault: 'a 200 HTML page answering a streamed request',
    upstream: {
      script: {
        steps: [
          { head: 200, headers: { 'content-type': 'text/html' } },
          { write: '<html><body>sign in</body></html>' },
        ],
        ending: 'end',
      },
    },
    client: { sees: 'upstream answer', status: 200 },
    outcome: 'upstream_error_body',
  },
  {
    // The meter skips the oversized event (src/sse/sse-parser.ts) and keeps reading: content before and after it
    // counts, and the finish reason and [DONE] after it make the stream whole (src/measure/stream-outcome.ts).
    fault: 'a 10 MB event between good ones',
    upstream: {
      script: {
        steps: [
          { head: 200, headers: SSE },
          { write: chatChunk({ content: 'before' }) },
          { write: TEN_MB_EVENT },
          { write: chatChunk({ content: ' after' }) },
          { write: FINISH },
          { write: DONE },
        ],
        ending: 'end',
      },
    },
    client: { sees: 'upstream answer', status: 200 },
    outcome: 'ok',
    record: { sseOverflow: true, contentChunks: 2, finishReason: 'stop' },
  },
  {
    fault: 'UTF-8 characters cut across chunks',
    upstream: {
      script: {
        steps: [
          { head: 200, headers: SSE },
          ...MULTI_BYTE_CONTENT.flatMap((content) =>
            cutInsideCharacters(chatChunk({ content })).map((write) => ({ write })),
          ),
          { write: FINISH },
          { write: DONE },
        ],
        ending: 'end',
      },
    },
    client: { sees: 'upstream answer', status: 200 },
    outcome: 'ok',
    record: {
      contentChunks: MULTI_BYTE_CONTENT.length,
      outputTokens: MULTI_BYTE_TOKENS,
      outputTokensSource: 'estimate',
    },
  },
  {
    fault: 'no [DONE] and no finish reason',
    upstream: {
      script: {
        steps: [{ head: 200, headers: SSE }, { write: chatChunk({ content: 'half' }) }],
        ending: 'end',
      },
    },
    client: { sees: 'upstream answer', status: 200 },
    outcome: 'truncated',
    error: /^the stream ended without a finish reason or \[DONE\]$/,
  },
  {
    fault: 'no [DONE] but a finish reason',
    upstream: {
      script: {
        steps: [{ head: 200, headers: SSE }, { write: chatChunk({ content: 'whole' }) }, { write: FINISH }],
        ending: 'end',
      },
    },
    client: { sees: 'upstream answer', status: 200 },
    outcome: 'ok',
    record: { finishReason: 'stop', error: null },
  },
];

interface Received {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Buffer;
  /** The body ended in an error rather than cleanly. */
  readonly cut: boolean;
  readonly elapsedMs: number;
}

async function send(gatewayUrl: string, stream: boolean): Promise<Received> {
  const started = performance.now();
  const response = await request(`${gatewayUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'm', stream, messages: [{ role: 'user', content: 'hi' }] }),
  });
  const chunks: Buffer[] = [];
  let cut = false;
  try {
    for await (const chunk of response.body) chunks.push(chunk as Buffer);
  } catch {
    cut = true;
  }
  return {
    status: response.statusCode,
    headers: response.headers,
    body: Buffer.concat(chunks),
    cut,
    elapsedMs: performance.now() - started,
  };
}

interface PointedUpstream {
  readonly baseUrl: string;
  readonly scripted: ScriptedUpstream | undefined;
  close(): Promise<void>;
}

async function pointAt(fault: UpstreamFault): Promise<PointedUpstream> {
  if ('script' in fault) {
    const scripted = await startScriptedUpstream(fault.script);
    return { baseUrl: scripted.url, scripted, close: () => scripted.close() };
  }
  if (fault.unreachable === 'nothing listening') {
    return {
      baseUrl: `http://127.0.0.1:${await refusingPort()}`,
      scripted: undefined,
      close: async () => {},
    };
  }
  const listener = await startUnacceptingListener();
  return { baseUrl: `http://127.0.0.1:${listener.port}`, scripted: undefined, close: () => listener.close() };
}

function assertClientReceived(expected: ClientSees, received: Received, upstream: PointedUpstream): void {
  assert.equal(received.status, expected.status, 'status');
  switch (expected.sees) {
    case 'upstream answer': {
      const sent = upstream.scripted?.written() ?? Buffer.alloc(0);
      assert.equal(received.cut, false, 'a clean end');
      assert.ok(
        received.body.equals(sent),
        `body: ${received.body.length} bytes received, ${sent.length} sent`,
      );
      for (const [name, value] of Object.entries(expected.headers ?? {})) {
        assert.equal(received.headers[name], value, name);
      }
      return;
    }
    case 'cut stream': {
      const sent = upstream.scripted?.written() ?? Buffer.alloc(0);
      assert.equal(received.cut, true, 'the client sees the cut, not a clean end');
      // An event stream ends with the gateway's comment line saying why, on a line of its own (the gateway adds
      // a line end first when the upstream's last line was unfinished); before it, the upstream's bytes.
      let relayed = received.body;
      if (/^text\/event-stream/.test(String(received.headers['content-type']))) {
        const at = received.body.lastIndexOf(STREAM_CUT_COMMENT);
        assert.ok(at >= 0, `the gateway says why: ${received.body.toString('utf8')}`);
        assert.match(
          received.body.subarray(at).toString('utf8'),
          /^: tokenmeter: stream cut: upstream 'faulty' .+\n$/,
        );
        relayed = received.body.subarray(0, at);
        if (!sent.subarray(0, relayed.length).equals(relayed)) relayed = relayed.subarray(0, -1);
      }
      assert.ok(
        sent.subarray(0, relayed.length).equals(relayed),
        'what arrived is the start of what the upstream sent',
      );
      return;
    }
    case 'gateway error': {
      assert.equal(received.cut, false, 'a clean end');
      const body = JSON.parse(received.body.toString('utf8')) as {
        error: { message: string; type: string; param: null; code: string };
      };
      assert.deepEqual(
        { ...body.error, message: '' },
        { message: '', type: 'upstream_error', param: null, code: expected.code },
      );
      assert.match(body.error.message, expected.message);
      return;
    }
  }
}

for (const row of ROWS) {
  const name = `${row.fault}: the client gets ${describe(row.client)}; recorded ${row.outcome}`;
  test(name, { todo: row.todo ?? false }, async (t) => {
    const upstream = await pointAt(row.upstream);
    t.after(() => upstream.close());
    const gateway = await startGateway({
      upstreams: [
        {
          name: 'faulty',
          baseUrl: upstream.baseUrl,
          keyless: true,
          timeouts: { ...BACKSTOP_TIMEOUTS, ...row.timeouts },
        },
      ],
    });
    t.after(() => gateway.close());

    const received = await send(gateway.url, row.stream ?? true);
    t.diagnostic(`answered in ${received.elapsedMs.toFixed(1)} ms`);
    assertClientReceived(row.client, received, upstream);
    for (const deadline of Object.values(row.timeouts ?? {})) {
      assert.ok(received.elapsedMs >= deadline, `the fault's deadline (${deadline} ms) had passed`);
    }

    const [record] = await closeAndAccount(gateway, 1);
    assert.ok(record !== undefined);
    assert.equal(record.outcome, row.outcome, `outcome (error: ${record.error})`);
    assert.equal(record.status, received.status, "the record's status is the client's");
    for (const [field, value] of Object.entries(row.record ?? {})) {
      assert.deepEqual(record[field as keyof RecordFields], value, field);
    }
    if (row.error !== undefined) assert.match(record.error ?? '', row.error);
    if (row.hint !== undefined) assert.match(record.hint ?? '', row.hint);
  });
}

// Node's server drops a connection from its count at destroy(), before the response's 'close' that writes the
// record; closing the gateway waits for the record anyway (plugins/index.ts).
test("closing the gateway the moment it has cut a stream still yields that stream's record", async (t) => {
  const upstream = await startScriptedUpstream({
    steps: [{ head: 200, headers: SSE }, { write: chatChunk({ content: 'half' }) }],
    ending: 'reset',
  });
  t.after(() => upstream.close());
  const gateway = await startGateway({
    upstreams: [{ name: 'faulty', baseUrl: upstream.url, keyless: true }],
  });
  t.after(() => gateway.close());
  const received = await send(gateway.url, true);
  assert.equal(received.cut, true);
  await closeAndAccount(gateway, 1);
});

function describe(client: ClientSees): string {
  switch (client.sees) {
    case 'upstream answer':
      return `the upstream's ${client.status} unchanged`;
    case 'cut stream':
      return `a ${client.status} stream, cut`;
    case 'gateway error':
      return `${client.status} ${client.code}`;
  }
}
