// Purpose-built upstreams for gateway tests: real HTTP(S) servers on port 0 whose behaviour each test scripts,
// recording every request they receive and when (performance.now(), the same clock as the gateway's).
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';

export interface ReceivedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: Buffer;
  readonly atMs: number;
  /** When the client side closed before the response finished (performance.now()), else undefined. */
  closedEarlyAtMs?: number;
}

export type UpstreamHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  body: Buffer,
  received: ReceivedRequest,
) => void;

export interface TestUpstream {
  readonly url: string;
  readonly port: number;
  readonly requests: ReceivedRequest[];
  close(): Promise<void>;
}

export async function startUpstream(
  handler: UpstreamHandler,
  tls?: { readonly key: string; readonly cert: string },
  /** keepBodies: false reads each body without keeping it (`body` is then empty): for bodies of megabytes. */
  options: { readonly keepBodies?: boolean } = {},
): Promise<TestUpstream> {
  const requests: ReceivedRequest[] = [];
  const keep = options.keepBodies !== false;
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => {
      if (keep) chunks.push(c);
    });
    req.on('end', () => {
      const received: ReceivedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
        atMs: performance.now(),
      };
      requests.push(received);
      res.on('close', () => {
        if (!res.writableFinished) received.closedEarlyAtMs = performance.now();
      });
      handler(req, res, received.body, received);
    });
  };
  const server: Server = tls ? createHttpsServer(tls, listener) : createHttpServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** One chat completions chunk as an SSE event. */
export function chatChunk(delta: Record<string, unknown>, finishReason: string | null = null): string {
  const chunk = {
    id: 'chatcmpl-test',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'test-model',
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  };
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

/** The shortest complete streamed chat answer: one content chunk ('hi'), a finish reason, then [DONE]. */
export function sendShortChatStream(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(`${chatChunk({ content: 'hi' })}${chatChunk({}, 'stop')}data: [DONE]\n\n`);
}

export function usageChunk(prompt: number, completion: number): string {
  const chunk = {
    id: 'chatcmpl-test',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'test-model',
    choices: [],
    usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
  };
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

export interface ScriptStep {
  /** Milliseconds after the request arrived. */
  readonly atMs: number;
  readonly data: string;
}

/** Writes each step at its time; returns when the last is written. Records actual write times in `written`. */
export function playScript(
  res: ServerResponse,
  steps: readonly ScriptStep[],
  written: number[],
  end = true,
): void {
  const start = performance.now();
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.flushHeaders();
  let i = 0;
  const next = (): void => {
    const step = steps[i];
    if (step === undefined) {
      if (end) res.end();
      return;
    }
    const wait = start + step.atMs - performance.now();
    setTimeout(
      () => {
        if (res.destroyed) return;
        written.push(performance.now());
        res.write(step.data);
        i++;
        next();
      },
      Math.max(0, wait),
    );
  };
  next();
}

/** A normal chat stream: role-only first chunk, `n` one-word content chunks, finish, optional usage, [DONE]. */
export function chatStreamSteps(n: number, firstMs: number, gapMs: number, withUsage: boolean): ScriptStep[] {
  const steps: ScriptStep[] = [{ atMs: 0, data: chatChunk({ role: 'assistant', content: '' }) }];
  for (let i = 0; i < n; i++)
    steps.push({ atMs: firstMs + i * gapMs, data: chatChunk({ content: ` word${i}` }) });
  const endMs = firstMs + (n - 1) * gapMs;
  let tail = chatChunk({}, 'stop');
  if (withUsage) tail += usageChunk(7, n);
  tail += 'data: [DONE]\n\n';
  steps.push({ atMs: endMs, data: tail });
  return steps;
}
