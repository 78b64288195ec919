// Sends crafted OTLP exports to a gateway's span receiver (a child process: bench/helpers/spawn-gateway.ts)
// while one chat stream runs through the same gateway, and measures what they cost it: its resident memory,
// read from /proc every few milliseconds, and the longest gap between the stream's chunks, which an upstream
// writes every TICK_MS: a gateway whose event loop is held for X ms delivers nothing for X ms. The measuring
// process's own stalls (it also sends the exports) are measured too, so a gap can be told from them.
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { request } from 'undici';
import type { LoopHoldReport } from './loop-hold-probe.js';
import { residentBytes, type SpawnedGateway } from './spawn-gateway.js';

/** How often the upstream writes a chunk of the concurrent stream. */
export const TICK_MS = 5;
/** How long the stream is watched before the exports are sent. */
export const QUIET_MS = 1000;
const CHUNK = 'data: {"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}\n\n';

/** An upstream whose every chat stream writes a chunk every TICK_MS until its client goes away. */
export async function startTickingUpstream(): Promise<{ readonly url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const timer = setInterval(() => res.write(CHUNK), TICK_MS);
    res.on('close', () => clearInterval(timer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export interface ExportAnswer {
  /** 0 when no answer came. */
  readonly status: number;
  readonly body: string;
}

export interface FloodResult {
  /** The gateway's RSS just before the exports were sent, bytes. */
  readonly idleRss: number;
  /** Its highest RSS from then until every export was answered and the stream ran on a while. */
  readonly peakRss: number;
  /** The longest gap between two of the stream's chunks at the client, ms (TICK_MS when nothing stalled). */
  readonly maxGapMs: number;
  /** The same in QUIET_MS before the exports: what the machine alone causes (other processes taking the CPU). */
  readonly quietGapMs: number;
  /** The longest stall of this (measuring) process's own event loop meanwhile, ms. */
  readonly ownStallMs: number;
  /** With the gateway's loop probe (spawnGateway's loopProbeFile): how long its own work held its loop. */
  readonly loopHeld: LoopHoldReport | null;
  readonly answers: readonly ExportAnswer[];
  /** From the first export sent to the last answered, ms. */
  readonly elapsedMs: number;
}

/** Asks the gateway's loop probe for its report (which also starts it over) and waits for it. */
async function loopProbeReport(pid: number, file: string): Promise<LoopHoldReport> {
  const read = async (): Promise<LoopHoldReport | null> => {
    try {
      return JSON.parse(await readFile(file, 'utf8')) as LoopHoldReport;
    } catch {
      return null; // not written yet, or being written
    }
  };
  const before = (await read())?.seq ?? 0;
  process.kill(pid, 'SIGUSR2');
  const giveUpAt = performance.now() + 10_000;
  for (;;) {
    const report = await read();
    if (report !== null && report.seq > before) return report;
    if (performance.now() > giveUpAt) throw new Error(`the gateway's loop probe did not report to ${file}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * Posts `copies` copies of `body` at once to the gateway's receiver, with a stream running; see the top.
 * `loopProbeFile`: the one the gateway was spawned with, to read its loop probe.
 */
export async function floodReceiver(
  gateway: SpawnedGateway,
  body: Buffer,
  contentType: string,
  copies: number,
  loopProbeFile?: string,
): Promise<FloodResult> {
  const metricsUrl = gateway.metricsUrl;
  if (metricsUrl === null) throw new Error('the gateway has no metrics port: start it with --metrics-port');
  const tracesUrl = metricsUrl.replace(/\/metrics$/, '/v1/traces');
  const pid = gateway.process.pid as number;
  const stream = await request(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'tick' }] }),
  });
  if (stream.statusCode !== 200) throw new Error(`the stream was answered ${stream.statusCode}`);
  let measuring = false;
  let maxGapMs = 0;
  let last = performance.now();
  let chunks = 0;
  const reading = (async () => {
    try {
      for await (const _ of stream.body) {
        const now = performance.now();
        if (measuring) maxGapMs = Math.max(maxGapMs, now - last);
        last = now;
        chunks++;
      }
    } catch {
      // Destroyed at the end.
    }
  })();
  // A few chunks first, so the measured gaps are the steady stream's.
  while (chunks < 20) await new Promise((resolve) => setTimeout(resolve, TICK_MS));
  measuring = true;
  await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
  const quietGapMs = maxGapMs;
  maxGapMs = 0;

  const idleRss = await residentBytes(pid);
  let peakRss = idleRss;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      peakRss = Math.max(peakRss, await residentBytes(pid).catch(() => 0));
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  if (loopProbeFile !== undefined) await loopProbeReport(pid, loopProbeFile);
  const ownStalls = monitorEventLoopDelay({ resolution: 1 });
  ownStalls.enable();
  const start = performance.now();
  const answers = await Promise.all(
    Array.from({ length: copies }, async (): Promise<ExportAnswer> => {
      try {
        const answer = await request(tracesUrl, {
          method: 'POST',
          headers: { 'content-type': contentType },
          body,
          headersTimeout: 60_000,
          bodyTimeout: 60_000,
        });
        return {
          status: answer.statusCode,
          body: Buffer.from(await answer.body.arrayBuffer()).toString('latin1'),
        };
      } catch (error) {
        // No answer (the connection was reset): status 0, and why.
        return { status: 0, body: String(error) };
      }
    }),
  );
  const elapsedMs = performance.now() - start;
  // The stream runs on a little, so a stall that began as the last answer left is seen too.
  await new Promise((resolve) => setTimeout(resolve, 200));
  measuring = false;
  ownStalls.disable();
  const loopHeld = loopProbeFile === undefined ? null : await loopProbeReport(pid, loopProbeFile);
  sampling = false;
  await sampler;
  stream.body.destroy();
  await reading;
  return {
    idleRss,
    peakRss,
    maxGapMs,
    quietGapMs,
    ownStallMs: Math.max(0, ownStalls.max / 1e6 - 1),
    loopHeld,
    answers,
    elapsedMs,
  };
}
