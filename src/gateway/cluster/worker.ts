// A gateway worker's side of the cluster: it serves like a single gateway, and asks the primary for what only the
// whole gateway knows. A scrape that reaches this worker (on the API port or the shared metrics port) asks the
// primary, which aggregates every worker's registry (primary.ts); the primary in turn asks this worker for its own
// registry. The records file is this worker's own (src/measure/record-files.ts names it by slot).
import cluster from 'node:cluster';
import { Registry } from 'prom-client';
import type { MetricsSource } from '../metrics/metrics-page.js';
import { type ToPrimary, toWorker, WORKER_SLOT_ENV } from './messages.js';

/** How long a scrape waits for the primary's aggregate; longer than the primary's own wait for each worker. */
const PAGE_TIMEOUT_MS = 6000;

export function isGatewayWorker(): boolean {
  return cluster.isWorker;
}

/** This worker's slot, 1..N: stable across replacements, unlike the cluster's worker id. */
export function workerSlot(): number {
  const slot = Number(process.env[WORKER_SLOT_ENV]);
  if (!Number.isInteger(slot) || slot < 1)
    throw new Error(`${WORKER_SLOT_ENV} is not set: not started by a primary`);
  return slot;
}

/**
 * Closes the channel to the primary so that this process ends when its work does (the channel would keep it
 * alive), with the exit status it sets. Through the cluster's own disconnect, which tells the primary the exit is
 * meant: a bare process.disconnect() makes Node end the worker at once with status 0.
 */
export function leavePrimary(): void {
  cluster.worker?.disconnect();
}

export function sendToPrimary(message: ToPrimary): void {
  process.send?.(message);
}

/**
 * Answers the primary's requests for this worker's registry, as JSON that `AggregatorRegistry.aggregate` reads,
 * with the requests in flight as it answers (so a scrape also brings the primary's count up to date).
 */
export function answerRegistryRequests(registry: Registry, inFlight: () => number): void {
  process.on('message', (raw) => {
    const message = toWorker(raw);
    if (message?.type !== 'tokenmeter:registry?') return;
    registry.getMetricsAsJSON().then(
      (metrics) =>
        sendToPrimary({ type: 'tokenmeter:registry', id: message.id, metrics, inFlight: inFlight() }),
      (error: unknown) =>
        sendToPrimary({
          type: 'tokenmeter:registry',
          id: message.id,
          error: String(error),
          inFlight: inFlight(),
        }),
    );
  });
}

/**
 * How often a worker looks at its requests in flight, sending the count to the primary when it changed. A worker
 * killed at once (SIGKILL, the OOM killer) says nothing more: the primary counts lost what it last heard, off by
 * the requests that began or ended in the last interval. One timer wake-up per interval, and one small message
 * only when the count changed.
 */
export const IN_FLIGHT_REPORT_MS = 100;

/** Reports `inFlight()` to the primary as it changes (see IN_FLIGHT_REPORT_MS); returns the stop. */
export function reportInFlight(inFlight: () => number): () => void {
  let reported = 0;
  const timer = setInterval(() => {
    const count = inFlight();
    if (count === reported || !process.connected) return;
    reported = count;
    sendToPrimary({ type: 'tokenmeter:in-flight', count });
  }, IN_FLIGHT_REPORT_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/** The /metrics page source of a worker: the whole gateway's exposition, aggregated by the primary. */
export function gatewayMetricsSource(): MetricsSource {
  let nextId = 0;
  const waiting = new Map<number, { resolve: (text: string) => void; reject: (error: Error) => void }>();
  process.on('message', (raw) => {
    const message = toWorker(raw);
    if (message?.type !== 'tokenmeter:page') return;
    const scrape = waiting.get(message.id);
    if (scrape === undefined) return;
    waiting.delete(message.id);
    if (message.text !== undefined) scrape.resolve(message.text);
    else scrape.reject(new Error(`the primary could not aggregate the workers' metrics: ${message.error}`));
  });
  return {
    contentType: Registry.PROMETHEUS_CONTENT_TYPE,
    metrics: () =>
      new Promise<string>((resolve, reject) => {
        const id = nextId++;
        const timer = setTimeout(() => {
          waiting.delete(id);
          reject(new Error(`the primary did not answer a scrape within ${PAGE_TIMEOUT_MS} ms`));
        }, PAGE_TIMEOUT_MS);
        waiting.set(id, {
          resolve: (text) => {
            clearTimeout(timer);
            resolve(text);
          },
          reject: (error) => {
            clearTimeout(timer);
            reject(error);
          },
        });
        sendToPrimary({ type: 'tokenmeter:page?', id });
      }),
  };
}

// Once-per-gateway log lines across workers: a worker that meets something worth one line (a client path pattern
// that needed fixing) asks the primary whether any worker met it before, and logs only when told it is the
// first. Without a primary (a single process) the caller's own memory is the gateway's, so it logs at once.
const granted = new Map<string, () => void>();
let listening = false;

/** Calls `log` if `key` is new to the whole gateway: at once in a single process, on the primary's word in a worker. */
export function firstInGateway(key: string, log: () => void): void {
  if (!cluster.isWorker) {
    log();
    return;
  }
  if (!listening) {
    listening = true;
    process.on('message', (raw) => {
      const message = toWorker(raw);
      if (message?.type !== 'tokenmeter:first') return;
      const log = granted.get(message.key);
      granted.delete(message.key);
      log?.();
    });
  }
  // The primary answers only a first; a key asked and not granted stays here, bounded by the caller's own cap.
  granted.set(key, log);
  sendToPrimary({ type: 'tokenmeter:first?', key });
}
