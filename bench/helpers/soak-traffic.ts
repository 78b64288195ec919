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
}

/**
 * Requests Node's HTTP parser refuses (src/gateway/client-errors.ts), as a broken client or a smuggling probe sends
 * them: a chunked body whose chunk size is not hex (its headers were read, so the request exists and is recorded
 * `rejected` with the client's 400) and a header block past Node's 16 KiB (refused before a request exists:
 * answered 431 and counted in tokenmeter_client_errors_total{reason="header_overflow"}, with no record).
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
 * The model name routed to the compressing upstream (startCompressingUpstream): soak.ts configures that
 * upstream with `models: [COMPRESSED_MODEL]` beside the simulator, and draws from REQUEST_KINDS_WITH_COMPRESSION.
 */
export const COMPRESSED_MODEL = 'tokenmeter/sim-7b-gzip';

/**
 * The soak's mix: REQUEST_KINDS with a share of answers compressed like a CDN would (gzip flushed per read,
 * although the gateway asks for identity) and a share of requests the parser refuses (ParserRefusal), taken from
 * the plain chat kinds, so the other kinds keep their shares.
 */
export const SOAK_MIX: readonly RequestKind[] = [
  ...REQUEST_KINDS.map((k) =>
    k.name === 'chat stream'
      ? { ...k, share: k.share - 0.07 }
      : k.name === 'chat json'
        ? { ...k, share: k.share - 0.03 }
        : k,
  ),
  {
    ...kind('chat stream, gzip', 0.05, '/v1/chat/completions', chat(true, SHORT)),
    body: JSON.stringify({ model: COMPRESSED_MODEL, ...chat(true, SHORT) }),
  },
  {
    ...kind('chat json, gzip', 0.03, '/v1/chat/completions', chat(false, SHORT)),
    body: JSON.stringify({ model: COMPRESSED_MODEL, ...chat(false, SHORT) }),
  },
  {
    ...kind('refused: bad chunk size', 0.01, '/v1/chat/completions', chat(false, SHORT)),
    refusal: 'bad_chunk',
  },
  { ...kind('refused: headers > 16 KiB', 0.01, '/v1/models', {}), refusal: 'header_overflow' },
];

/** The bytes of a request the parser refuses for `refusal`, carrying `requestId`. */
function refusedRequest(k: RequestKind, host: string, requestId: string): string {
  const head = `POST ${k.path} HTTP/1.1\r\nhost: ${host}\r\ncontent-type: application/json\r\nx-request-id: ${requestId}\r\n`;
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

/**
 * An upstream that answers as the simulator at `simulatorUrl` does, compressed with gzip whatever the request
 * asked for, each read of the simulator's answer flushed on its own (Z_SYNC_FLUSH), so the gateway gets a
 * compressed stream event by event. The model is renamed to the simulator's on the way.
 */
export async function startCompressingUpstream(
  simulatorUrl: string,
): Promise<{ readonly url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => void relay(simulatorUrl, req, Buffer.concat(chunks), res));
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

async function relay(
  simulatorUrl: string,
  req: IncomingMessage,
  body: Buffer,
  res: ServerResponse,
): Promise<void> {
  const text = body.toString('utf8').replaceAll(COMPRESSED_MODEL, MODEL);
  try {
    const answer = await request(`${simulatorUrl}${req.url ?? '/'}`, {
      method: (req.method ?? 'POST') as Dispatcher.HttpMethod,
      headers: {
        'content-type': 'application/json',
        'x-request-id': String(req.headers['x-request-id'] ?? ''),
      },
      body: text,
    });
    const headers: Record<string, string> = { 'content-encoding': 'gzip' };
    const type = answer.headers['content-type'];
    if (typeof type === 'string') headers['content-type'] = type;
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
 * What the client saw: `ok` (2xx, read to its end), `http_<status>` (read to its end), `left` (the client left
 * mid-stream, on purpose), `cut` (headers arrived, then the body failed), `failed <code>` (no response at all).
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
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': requestId },
      body: k.body,
      signal: controller.signal,
    });
    status = response.statusCode;
    body = response.body;
  } catch (error) {
    return `failed ${(error as { code?: string }).code ?? (error as Error).name}`;
  }
  const leave = k.abortAfterFirstChunk && status < 300;
  try {
    for await (const _chunk of body) {
      if (leave) controller.abort();
    }
  } catch {
    return controller.signal.aborted ? 'left' : 'cut';
  }
  return status < 300 ? 'ok' : `http_${status}`;
}
