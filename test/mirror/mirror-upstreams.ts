// Scripted upstreams for the mirror tests: a primary with a fixed streamed answer, and mirrors that misbehave on
// cue (slower, 5xx, refusing connections, cutting the stream, holding every answer until released).

import type { ServerResponse } from 'node:http';
import { createServer } from 'node:net';
import type { GatewayConfigInput, MirrorInput } from '../../src/gateway/config/config.js';
import {
  chatChunk,
  chatStreamSteps,
  playScript,
  startUpstream,
  type TestUpstream,
} from '../gateway/helpers/upstream.js';

/** The primary's answer: first content chunk 40 ms after the request, then 4 more 10 ms apart, with usage. */
export const PRIMARY_FIRST_MS = 40;
export const PRIMARY_STEPS = chatStreamSteps(5, PRIMARY_FIRST_MS, 10, true);
/** The slow mirror: its first token comes 250 ms after the primary's would. */
export const SLOW_FIRST_MS = 290;

export function startPrimary(): Promise<TestUpstream> {
  return startUpstream((_req, res) => playScript(res, PRIMARY_STEPS, []));
}

export function startSlowMirror(): Promise<TestUpstream> {
  return startUpstream((_req, res) => playScript(res, chatStreamSteps(5, SLOW_FIRST_MS, 10, true), []));
}

export function startFailingMirror(): Promise<TestUpstream> {
  return startUpstream((_req, res) => {
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end('{"error":{"message":"mirror broke","type":"server_error"}}');
  });
}

/** Sends two content chunks, then destroys the connection: no finish reason, no [DONE]. */
export function startCuttingMirror(): Promise<TestUpstream> {
  return startUpstream((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(chatChunk({ role: 'assistant', content: '' }) + chatChunk({ content: ' one' }));
    setTimeout(() => {
      res.write(chatChunk({ content: ' two' }));
      res.socket?.destroy();
    }, 20);
  });
}

export interface HoldingUpstream extends TestUpstream {
  /** Answers every request held so far (a short complete stream). */
  release(): void;
  /** Requests waiting for release. */
  held(): number;
  /** Resolves once `count` requests are waiting. */
  holding(count: number): Promise<void>;
}

/** An upstream that answers nothing until `release()`. */
export async function startHoldingMirror(): Promise<HoldingUpstream> {
  const waiting: ServerResponse[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const upstream = await startUpstream((_req, res) => {
    waiting.push(res);
    for (const w of waiters.splice(0)) {
      if (waiting.length >= w.count) w.resolve();
      else waiters.push(w);
    }
  });
  return {
    ...upstream,
    held: () => waiting.length,
    holding: (count) =>
      new Promise((resolve) => {
        if (waiting.length >= count) resolve();
        else waiters.push({ count, resolve });
      }),
    release() {
      for (const res of waiting.splice(0)) playScript(res, chatStreamSteps(2, 1, 1, true), []);
    },
  };
}

/** A port on which nothing listens: bound, then closed. */
export async function refusedUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

/** A gateway whose route `m` goes to the primary and, when `mirror` is given, copies to the `mirror` upstream. */
export function mirrorConfig(
  primaryUrl: string,
  mirrorUrl: string,
  mirror?: Omit<MirrorInput, 'upstream' | 'model'>,
  gateway: Partial<GatewayConfigInput> = {},
): GatewayConfigInput {
  return {
    ...gateway,
    upstreams: [
      {
        name: 'primary',
        baseUrl: `${primaryUrl}/v1`,
        keyless: true,
        models: [
          {
            alias: 'm',
            id: 'primary-model',
            ...(mirror === undefined ? {} : { mirror: { upstream: 'copy', model: 'copy-model', ...mirror } }),
          },
        ],
      },
      { name: 'copy', baseUrl: `${mirrorUrl}/v1`, key: 'mirror-upstream-key' },
    ],
  };
}

export const STREAMED_CHAT = JSON.stringify({
  model: 'm',
  stream: true,
  messages: [{ role: 'user', content: 'Say five words.' }],
});
