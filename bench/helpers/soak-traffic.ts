// The soak benchmark's traffic: a fixed mix of request kinds (streamed and non-streamed, three protocols, answers
// long enough to meet the simulator's stall and cut, clients that leave mid-stream; in SOAK_MIX, answers gzipped
// by an upstream in front of the simulator and requests Node's HTTP parser refuses), drawn per request from a
// seeded sequence, and one request sent (with undici, or over a raw socket for a refused one) and classified by
// what its client saw.
//
// The simulator's in-stream faults apply by length: every stream that reaches SIM_STALL_AFTER_TOKENS pauses once,
// every one that reaches SIM_CUT_AFTER_TOKENS is cut. Ordinary answers stop before both (max_tokens 12), so
// which requests meet a fault is chosen here, by kind.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { constants, createGzip } from 'node:zlib';
import type { Dispatcher } from 'undici';
import { request } from 'undici';
import type { SeededRandom } from '../../src/shared/random.js';

export const SIM_STALL_AFTER_TOKENS = 15;
export const SIM_STALL_MS = 1000;
export const SIM_CUT_AFTER_TOKENS = 30;
/** Shares of requests the simulator answers at once with a fault (drawn by the simulator, seeded). */
export const SIM_ERROR_RATE = 0.02;
export const SIM_RATE_LIMIT_RATE = 0.02;
export const SIM_ERROR_BODY_RATE = 0.02;

const MODEL = 'tokenmeter/sim-7b';
const SHORT = 12;

export interface RequestKind {
  readonly name: string;
  readonly share: number;
  readonly path: string;
  readonly body: string;
  /** The client leaves after the first chunk of a 2xx answer. */
  readonly abortAfterFirstChunk: boolean;
  /** Sent so that Node's HTTP parser refuses it (sendRefused); null for a well-formed request. */
  readonly refusal: ParserRefusal | null;
  /** The client reads to the protocol's final event (`data: [DONE]`) and closes there, as the openai package does. */
  readonly closeAtFinalEvent?: boolean;
  /** The client checks the body it got for UPSTREAM_KEY in any JSON spelling (`leaked` if found). */
  readonly watchForKey?: boolean;
  /** Sent without the gateway key, as a GET (refused 401, recorded `rejected`). */
  readonly keyless?: boolean;
  /**
   * The record outcomes each client outcome may have, where issue 30's fault matrix fixed them (a close at the final
   * event is ok, never client_abort; a 2xx without an answer is upstream_error_body); soak.ts counts each request
   * recorded otherwise. A 2xx relayed from the simulator may also be upstream_error_body: its --error-body-rate.
   */
  readonly recordedAs?: Readonly<Record<string, readonly string[]>>;
}

/**
 * Requests Node's HTTP parser refuses (src/gateway/serve/client-errors.ts), as a broken client or a smuggling
 * probe sends them: a chunked body whose chunk size is not hex (its headers were read, so the request exists and
 * is recorded `rejected` with the client's 400) and a header block past Node's 16 KiB (refused before a request
 * exists: answered 431 and counted in tokenmeter_client_errors_total{reason="header_overflow"}, with no record).
 */
export type ParserRefusal = 'bad_chunk' | 'header_overflow';

function kind(
  name: string,
  share: number,
  path: string,
  body: object,
  abortAfterFirstChunk = false,
): RequestKind {
  return {
    name,
    share,
    path,
    body: JSON.stringify({ model: MODEL, ...body }),
    abortAfterFirstChunk,
    refusal: null,
  };
}

const chat = (stream: boolean, maxTokens: number, ignoreEos = false): object => ({
  messages: [{ role: 'user', content: 'Tell me about the sea.' }],
  stream,
  max_tokens: maxTokens,
  ...(ignoreEos ? { ignore_eos: true } : {}),
});

export const REQUEST_KINDS: readonly RequestKind[] = [
  kind('chat stream', 0.35, '/v1/chat/completions', chat(true, SHORT)),
  kind('chat json', 0.15, '/v1/chat/completions', chat(false, SHORT)),
  kind('completions stream', 0.15, '/v1/completions', {
    prompt: 'Once upon a time',
    stream: true,
    max_tokens: SHORT,
  }),
  kind('messages stream', 0.15, '/v1/messages', {
    messages: [{ role: 'user', content: 'Tell me about the sea.' }],
    stream: true,
    max_tokens: SHORT,
  }),
  kind('chat stream, stalled', 0.07, '/v1/chat/completions', chat(true, SIM_STALL_AFTER_TOKENS + 5, true)),
  kind('chat stream, cut', 0.06, '/v1/chat/completions', chat(true, SIM_CUT_AFTER_TOKENS + 10, true)),
  kind(
    'chat stream, client leaves',
    0.07,
    '/v1/chat/completions',
    chat(true, SIM_STALL_AFTER_TOKENS + 5, true),
    true,
  ),
];

/**
 * The model names routed to the scripted upstream (startScriptedUpstream), each naming what it does with the
 * request: soak.ts configures that upstream with `models: SCRIPTED_MODELS` beside the simulator (KEY_ECHO_MODEL
 * on an upstream of its own, the one with a key), and draws from SOAK_MIX.
 */
export const COMPRESSED_MODEL = 'tokenmeter/sim-7b-gzip';
/** The simulator's stream with its final event held LATE_END_MS, then its end of body held LATE_END_MS more. */
export const LATE_END_MODEL = 'tokenmeter/sim-7b-late-end';
/** The simulator's answer after an unsolicited `100 Continue`. */
export const CONTINUE_MODEL = 'tokenmeter/sim-7b-continue';
/** The simulator's plain answer with `usage.prompt_tokens` 1e12 (src/measure/reported-usage.ts). */
export const IMPLAUSIBLE_USAGE_MODEL = 'tokenmeter/sim-7b-implausible-usage';
/** A plain 2xx holding no answer, in turn: an HTML page, `choices: []`, a 204, an empty 200. */
export const NO_ANSWER_MODEL = 'tokenmeter/sim-7b-no-answer';
/** A 401 quoting the key it was sent, spelled with JSON escapes, in turn: `\/`, `\uXXXX`, mixed. */
export const KEY_ECHO_MODEL = 'tokenmeter/sim-7b-key-echo';
export const SCRIPTED_MODELS: readonly string[] = [
  COMPRESSED_MODEL,
  LATE_END_MODEL,
  CONTINUE_MODEL,
  IMPLAUSIBLE_USAGE_MODEL,
  NO_ANSWER_MODEL,
];
/** The upstream key the gateway holds for KEY_ECHO_MODEL's upstream: with `/`, so `\/` is one of its spellings. */
export const UPSTREAM_KEY = 'sk-soak-Ab3dEf/6hIj9kLm2+nOp5qRs8tUv/Wx1';
/** The gateway key every soak client sends, but the keyless ones. */
export const GATEWAY_KEY = 'soak-gateway-key-0123456789abcdef';
/** How long the late-end upstream holds the final event, and then its end of body (finished-streams.test.ts's 200). */
const LATE_END_MS = 200;
/** The keyless clients' paths: 15 KB, cut to 512 bytes in their records (src/gateway/records/measurement.ts). */
const LONG_PATH = `/v1/${'a'.repeat(15_000)}`;

/** The name of the kind whose answers report usage.prompt_tokens 1e12 (soak.ts checks their records). */
export const IMPLAUSIBLE_USAGE_KIND = 'implausible usage';

/** A 2xx relayed from the simulator: ok, or upstream_error_body when the simulator wrote its error body into it. */
const RELAYED_2XX = { ok: ['ok', 'upstream_error_body'] };

function scripted(
  k: RequestKind,
  model: string,
  recordedAs?: Readonly<Record<string, readonly string[]>>,
): RequestKind {
  return {
    ...k,
    body: k.body.replace(JSON.stringify(MODEL), JSON.stringify(model)),
    ...(recordedAs === undefined ? {} : { recordedAs }),
  };
}

/**
 * The soak's mix: REQUEST_KINDS, with shares taken from the plain chat kinds (so the other kinds keep theirs) for
 * answers compressed like a CDN would (gzip flushed per read, although the gateway asks for identity), requests
 * the parser refuses (ParserRefusal), and the rows of issue 30's fault matrix: clients that close at the final
 * event while the end of body is late (recorded ok) or before it (client_abort), a key echoed in JSON escapes,
 * implausible usage, an unsolicited 100, plain 2xx answers holding none, and keyless clients with 15 KB paths.
 */
export const SOAK_MIX: readonly RequestKind[] = [
  ...REQUEST_KINDS.map((k) =>
    k.name === 'chat stream'
      ? { ...k, share: k.share - 0.07 - 0.05 }
      : k.name === 'chat json'
        ? { ...k, share: k.share - 0.03 - 0.04 }
        : k,
  ),
  scripted(kind('chat stream, gzip', 0.05, '/v1/chat/completions', chat(true, SHORT)), COMPRESSED_MODEL),
  scripted(kind('chat json, gzip', 0.03, '/v1/chat/completions', chat(false, SHORT)), COMPRESSED_MODEL),
  {
    ...kind('refused: bad chunk size', 0.01, '/v1/chat/completions', chat(false, SHORT)),
    refusal: 'bad_chunk',
  },
  { ...kind('refused: headers > 16 KiB', 0.01, '/v1/models', {}), refusal: 'header_overflow' },
  {
    ...scripted(
      kind('stream, closed at final event', 0.02, '/v1/chat/completions', chat(true, SHORT)),
      LATE_END_MODEL,
      RELAYED_2XX,
    ),
    closeAtFinalEvent: true,
  },
  scripted(
    kind('stream, closed before final', 0.01, '/v1/chat/completions', chat(true, SHORT), true),
    LATE_END_MODEL,
    { left: ['client_abort'] },
  ),
  {
    ...scripted(
      kind('upstream echoes key', 0.01, '/v1/chat/completions', chat(false, SHORT)),
      KEY_ECHO_MODEL,
      { http_401: ['http_error'] },
    ),
    watchForKey: true,
  },
  scripted(
    kind(IMPLAUSIBLE_USAGE_KIND, 0.01, '/v1/chat/completions', chat(false, SHORT)),
    IMPLAUSIBLE_USAGE_MODEL,
    RELAYED_2XX,
  ),
  scripted(
    kind('100 Continue, json', 0.005, '/v1/chat/completions', chat(false, SHORT)),
    CONTINUE_MODEL,
    RELAYED_2XX,
  ),
  scripted(
    kind('100 Continue, stream', 0.005, '/v1/chat/completions', chat(true, SHORT)),
    CONTINUE_MODEL,
    RELAYED_2XX,
  ),
  scripted(kind('2xx without an answer', 0.02, '/v1/chat/completions', chat(false, SHORT)), NO_ANSWER_MODEL, {
    ok: ['upstream_error_body'],
  }),
  {
    ...kind('refused: no key, 15 KB path', 0.01, LONG_PATH, {}),
    keyless: true,
    recordedAs: { http_401: ['rejected'] },
  },
];

/** The bytes of a request the parser refuses for `refusal`, carrying `requestId`. */
function refusedRequest(k: RequestKind, host: string, requestId: string): string {
  const head = `POST ${k.path} HTTP/1.1\r\nhost: ${host}\r\ncontent-type: application/json\r\nx-request-id: ${requestId}\r\nx-api-key: ${GATEWAY_KEY}\r\n`;
  if (k.refusal === 'header_overflow')
    return `${head}x-padding: ${'a'.repeat(20_000)}\r\ncontent-length: 0\r\n\r\n`;
  // `zz` is no chunk size: the parser fails on the body, after the headers made a request.
  return `${head}transfer-encoding: chunked\r\n\r\nzz\r\n${k.body}\r\n0\r\n\r\n`;
}

/** Sends a request the parser refuses over a raw socket; `http_<status>` from the answer's status line. */
function sendRefused(baseUrl: string, requestId: string, k: RequestKind): Promise<ClientOutcome> {
  const url = new URL(baseUrl);
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname);
    let answer = '';
    socket.setEncoding('latin1');
    socket.on('data', (text: string) => {
      answer += text;
    });
    socket.once('connect', () => socket.end(refusedRequest(k, url.host, requestId)));
    const settle = (error?: Error): void => {
      const status = /^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1];
      if (status !== undefined) resolve(`http_${status}`);
      else resolve(`failed ${(error as { code?: string } | undefined)?.code ?? 'no answer'}`);
    };
    socket.once('error', settle);
    socket.once('close', () => settle());
  });
}

/** The kind of the next request, drawn by share from `kinds`. */
export function drawKind(random: SeededRandom, kinds: readonly RequestKind[] = REQUEST_KINDS): RequestKind {
  let roll = random.next();
  for (const k of kinds) {
    roll -= k.share;
    if (roll < 0) return k;
  }
  return kinds[kinds.length - 1] as RequestKind;
}

/** A JSON string's spellings of `text` the key-echo upstream uses, in turn (key-spellings.test.ts's). */
function spelledKey(text: string, turn: number): string {
  const unicode = (c: string, upper: boolean): string => {
    const hex = c.charCodeAt(0).toString(16).padStart(4, '0');
    return `\\u${upper ? hex.toUpperCase() : hex}`;
  };
  const chars = [...text];
  if (turn % 3 === 0) return text.replaceAll('/', '\\/');
  if (turn % 3 === 1) return chars.map((c) => unicode(c, turn % 2 === 0)).join('');
  return chars.map((c, i) => (c === '/' ? '\\/' : i % 3 === 1 ? unicode(c, i % 2 === 0) : c)).join('');
}

/** `text` with JSON's escapes decoded wherever they are: what a JSON reader of it would see. */
export function jsonDecoded(text: string): string {
  return text
    .replace(/\\u([0-9a-fA-F]{4})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
    .replaceAll('\\/', '/');
}

/**
 * The soak's scripted upstream: each request is handled by what its model names (SCRIPTED_MODELS, KEY_ECHO_MODEL),
 * most by relaying the simulator at `simulatorUrl`'s answer (the model renamed to the simulator's on the way), as
 * a CDN or a hosted API in front of it would misbehave.
 */
export async function startScriptedUpstream(
  simulatorUrl: string,
): Promise<{ readonly url: string; close(): Promise<void> }> {
  let turn = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { model?: string };
      const model = body.model;
      body.model = MODEL;
      const text = JSON.stringify(body);
      turn++;
      if (model === KEY_ECHO_MODEL) {
        const key = /^Bearer (.*)$/.exec(String(req.headers.authorization))?.[1] ?? '';
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(
          `{"error":{"message":"Incorrect API key provided: ${spelledKey(key, turn)}","type":"invalid_request_error"}}`,
        );
      } else if (model === NO_ANSWER_MODEL) {
        const form = turn % 4;
        if (form === 0) {
          res.writeHead(200, { 'content-type': 'text/html' });
          res.end('<html><body><h1>Service temporarily unavailable</h1></body></html>');
        } else if (form === 1) {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(
            '{"id":"x","object":"chat.completion","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":0}}',
          );
        } else if (form === 2) {
          res.writeHead(204).end();
        } else {
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': '0' }).end();
        }
      } else {
        if (model === CONTINUE_MODEL) res.writeContinue();
        void relay(simulatorUrl, req, text, res, model ?? '');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const wait = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Relays the simulator's answer to `body` as `model`'s script says (see the *_MODEL constants). */
async function relay(
  simulatorUrl: string,
  req: IncomingMessage,
  body: string,
  res: ServerResponse,
  model: string,
): Promise<void> {
  try {
    const answer = await request(`${simulatorUrl}${req.url ?? '/'}`, {
      method: (req.method ?? 'POST') as Dispatcher.HttpMethod,
      headers: {
        'content-type': 'application/json',
        'x-request-id': String(req.headers['x-request-id'] ?? ''),
      },
      body,
    });
    const headers: Record<string, string> = {};
    const type = answer.headers['content-type'];
    if (typeof type === 'string') headers['content-type'] = type;
    if (model === IMPLAUSIBLE_USAGE_MODEL && answer.statusCode < 300) {
      const json = (await answer.body.json()) as { usage?: Record<string, unknown> };
      json.usage = { ...json.usage, prompt_tokens: 1e12 };
      res.writeHead(answer.statusCode, headers).end(JSON.stringify(json));
      return;
    }
    if (model !== COMPRESSED_MODEL) {
      res.writeHead(answer.statusCode, headers);
      for await (const chunk of answer.body) {
        const text = (chunk as Buffer).toString('utf8');
        const final = model === LATE_END_MODEL ? text.indexOf('data: [DONE]') : -1;
        if (final < 0) {
          res.write(text);
          continue;
        }
        res.write(text.slice(0, final));
        await wait(LATE_END_MS);
        res.write(text.slice(final));
      }
      if (model === LATE_END_MODEL) await wait(LATE_END_MS);
      res.end();
      return;
    }
    headers['content-encoding'] = 'gzip';
    res.writeHead(answer.statusCode, headers);
    res.flushHeaders();
    const gzip = createGzip();
    gzip.pipe(res);
    for await (const chunk of answer.body) {
      gzip.write(chunk as Buffer);
      await new Promise<void>((resolve) => gzip.flush(constants.Z_SYNC_FLUSH, () => resolve()));
    }
    gzip.end();
  } catch {
    // The simulator cut the stream (its fault injection): cut this one too, as a CDN in front would.
    res.destroy();
  }
}

/**
 * What the client saw: `ok` (2xx, read to its end, or to its final event when the kind closes there), `http_<status>`
 * (read to its end), `left` (the client left mid-stream, on purpose), `cut` (headers arrived, then the body failed),
 * `failed <code>` (no response at all), `leaked` (the body held UPSTREAM_KEY, in any JSON spelling).
 */
export type ClientOutcome = string;

/** Sends one request with `requestId` as its x-request-id; never throws. */
export async function sendOne(
  dispatcher: Dispatcher,
  baseUrl: string,
  requestId: string,
  k: RequestKind,
): Promise<ClientOutcome> {
  if (k.refusal !== null) return sendRefused(baseUrl, requestId, k);
  const controller = new AbortController();
  let status: number;
  let body: AsyncIterable<unknown>;
  try {
    const response = await request(`${baseUrl}${k.path}`, {
      dispatcher,
      signal: controller.signal,
      ...(k.keyless === true
        ? { method: 'GET', headers: { 'x-request-id': requestId } }
        : {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              'x-request-id': requestId,
              'x-api-key': GATEWAY_KEY,
            },
            body: k.body,
          }),
    });
    status = response.statusCode;
    body = response.body;
  } catch (error) {
    return `failed ${(error as { code?: string }).code ?? (error as Error).name}`;
  }
  const leave = k.abortAfterFirstChunk && status < 300;
  const keep = k.watchForKey === true || (k.closeAtFinalEvent === true && status < 300);
  let text = '';
  let atFinalEvent = false;
  try {
    for await (const chunk of body) {
      if (keep) text += (chunk as Buffer).toString('utf8');
      if (leave) controller.abort();
      if (k.closeAtFinalEvent === true && text.includes('data: [DONE]')) {
        atFinalEvent = true;
        controller.abort();
      }
    }
  } catch {
    if (atFinalEvent) return 'ok';
    return controller.signal.aborted ? 'left' : 'cut';
  }
  if (k.watchForKey === true && jsonDecoded(text).includes(UPSTREAM_KEY)) return 'leaked';
  return status < 300 ? 'ok' : `http_${status}`;
}
