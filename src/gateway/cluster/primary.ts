// The primary of `tokenmeter serve --workers N`: it only supervises. It forks N workers that each serve the same
// configuration on the same ports (Node's cluster shares the listening sockets and hands connections round robin),
// replaces a worker that dies (RestartBackoff, at the end), turns its own SIGTERM/SIGINT into one shutdown of every
// worker at once (the first drains, a second cuts) and its SIGHUP into every worker reopening its records file,
// aggregates the workers' registries into the gateway's one
// /metrics page for whichever worker was scraped, and answers "first in the gateway?" for once-per-pattern log
// lines. It loads no Fastify and serves no request: a primary that does nothing else cannot become the bottleneck.
// A worker that dies (killed, crashed) takes the requests it was serving with it, and their records: the primary
// counts them lost (tokenmeter_requests_lost_total{reason="worker_exit"}, added to the aggregated page) from the
// count the worker last reported, and says so in a log line.
import cluster, { type Worker } from 'node:cluster';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { AggregatorRegistry, Registry } from 'prom-client';
import { registerRequestsLost } from '../metrics/gateway-metrics.js';
import { type RegistryJson, type ToWorker, toPrimary, WORKER_SLOT_ENV } from './messages.js';

/** How long one scrape waits for every worker's registry before it fails (a stuck worker fails the scrape). */
const REGISTRY_TIMEOUT_MS = 5000;
/** Distinct once-per-gateway keys remembered; past it, nothing new is logged (as PathFixLog's own cap). */
const MAX_FIRST_KEYS = 10_000;

interface Slot {
  readonly number: number;
  readonly backoff: RestartBackoff;
  worker: Worker | null;
  startedAt: number;
  restartTimer: NodeJS.Timeout | null;
}

interface Gather {
  readonly pending: Set<Worker>;
  readonly registries: RegistryJson[];
  readonly done: (error: string | null) => void;
}

export interface PrimaryOptions {
  readonly workers: number;
  readonly logger: Logger;
}

function send(worker: Worker, message: ToWorker): void {
  if (worker.isConnected()) worker.send(message);
}

/** Runs the gateway as N workers until they have all exited after a signal; resolves with the exit status. */
export function runPrimary(options: PrimaryOptions): Promise<number> {
  const { workers: count, logger } = options;
  const info = logger.child({}, { level: 'info' });
  const slots: Slot[] = Array.from({ length: count }, (_, i) => ({
    number: i + 1,
    backoff: new RestartBackoff(),
    worker: null,
    startedAt: 0,
    restartTimer: null,
  }));
  const slotOf = new Map<Worker, Slot>();
  const listening = new Set<Worker>();
  const gathers = new Map<number, Gather>();
  const firstKeys = new Set<string>();
  /** What each worker last reported of its requests in flight. */
  const heldBy = new Map<Worker, number>();
  let lostToWorkerExits = 0;
  // The primary's own figures, added to the workers' when a page is aggregated.
  const own = new Registry();
  registerRequestsLost(own, () => lostToWorkerExits);
  let nextGather = 0;
  let announced = false;
  let stopping = false;
  let exitStatus = 0;

  return new Promise<number>((resolve) => {
    const fork = (slot: Slot): void => {
      slot.restartTimer = null;
      slot.startedAt = performance.now();
      const worker = cluster.fork({ [WORKER_SLOT_ENV]: String(slot.number) });
      slot.worker = worker;
      slotOf.set(worker, slot);
    };

    const live = (): Worker[] => slots.flatMap((s) => (s.worker === null ? [] : [s.worker]));

    /**
     * A worker that listens shuts down on the primary's word (a terminal's Ctrl-C also reached it directly: one
     * already draining ignores the word). One still starting has served nothing and has no shutdown yet: it
     * is ended by the signal itself.
     */
    const stopAll = (how: 'tokenmeter:drain' | 'tokenmeter:cut', signal: NodeJS.Signals): void => {
      for (const worker of live()) {
        if (listening.has(worker)) send(worker, { type: how, signal });
        else worker.process.kill('SIGTERM');
      }
    };

    const finishIfAllExited = (): void => {
      if (live().length > 0 || slots.some((s) => s.restartTimer !== null)) return;
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      process.off('SIGHUP', onHangup);
      logger.flush();
      resolve(exitStatus);
    };

    const onSignal = (signal: NodeJS.Signals): void => {
      if (stopping) {
        info.warn({ signal }, `${signal} again: every worker cuts its connections`);
        stopAll('tokenmeter:cut', signal);
        return;
      }
      stopping = true;
      for (const slot of slots) {
        if (slot.restartTimer !== null) clearTimeout(slot.restartTimer);
        slot.restartTimer = null;
      }
      info.info({ signal, workers: live().length }, `${signal}: every worker drains`);
      stopAll('tokenmeter:drain', signal);
      finishIfAllExited();
    };

    const gatherRegistries = (asker: Worker, scrapeId: number): void => {
      const id = nextGather++;
      const reply = (answer: { text: string } | { error: string }): void =>
        send(asker, { type: 'tokenmeter:page', id: scrapeId, ...answer });
      const timer = setTimeout(
        () => gather.done(`a worker did not answer within ${REGISTRY_TIMEOUT_MS} ms`),
        REGISTRY_TIMEOUT_MS,
      );
      const gather: Gather = {
        pending: new Set(listening),
        registries: [],
        done: (error) => {
          if (!gathers.delete(id)) return;
          clearTimeout(timer);
          if (error !== null) {
            reply({ error });
            return;
          }
          // A page that cannot be merged fails this scrape, never the primary.
          own
            .getMetricsAsJSON()
            .then((ownMetrics) => AggregatorRegistry.aggregate([...gather.registries, ownMetrics]).metrics())
            .then(
              (text) => reply({ text }),
              (failure: unknown) => reply({ error: String(failure) }),
            );
        },
      };
      gathers.set(id, gather);
      for (const worker of gather.pending) send(worker, { type: 'tokenmeter:registry?', id });
      if (gather.pending.size === 0) gather.done(null);
    };

    cluster.on('message', (worker, raw) => {
      const message = toPrimary(raw);
      if (message === null) return;
      switch (message.type) {
        case 'tokenmeter:listening': {
          listening.add(worker);
          const slot = slotOf.get(worker);
          if (announced) {
            info.info(`worker ${slot?.number} replaced: pid ${worker.process.pid} serves`);
          } else if (listening.size === count) {
            announced = true;
            const pids = [...listening].map((w) => w.process.pid).join(', ');
            info.info(`${message.line}; ${count} workers (pids ${pids})`);
          }
          logger.flush();
          return;
        }
        case 'tokenmeter:in-flight':
          heldBy.set(worker, message.count);
          return;
        case 'tokenmeter:registry': {
          heldBy.set(worker, message.inFlight);
          const gather = gathers.get(message.id);
          if (gather === undefined || !gather.pending.delete(worker)) return;
          if (message.metrics === undefined) {
            gather.done(message.error ?? 'a worker could not collect its metrics');
            return;
          }
          gather.registries.push(message.metrics);
          if (gather.pending.size === 0) gather.done(null);
          return;
        }
        case 'tokenmeter:page?':
          gatherRegistries(worker, message.id);
          return;
        case 'tokenmeter:first?':
          if (firstKeys.has(message.key) || firstKeys.size >= MAX_FIRST_KEYS) return;
          firstKeys.add(message.key);
          send(worker, { type: 'tokenmeter:first', key: message.key });
          return;
      }
    });

    cluster.on('exit', (worker, code, signal) => {
      const slot = slotOf.get(worker);
      const wasListening = listening.delete(worker);
      slotOf.delete(worker);
      // Its counts are gone with it: a scrape waiting on it aggregates the others.
      for (const gather of gathers.values()) {
        if (gather.pending.delete(worker) && gather.pending.size === 0) gather.done(null);
      }
      const held = heldBy.get(worker) ?? 0;
      heldBy.delete(worker);
      if (slot === undefined) return;
      slot.worker = null;
      const how = signal === null ? `with code ${code}` : `on ${signal}`;
      // A worker that exits 0 finished (or recorded) every request it had; its last report may predate that.
      if (held > 0 && (code !== 0 || signal !== null)) {
        lostToWorkerExits += held;
        logger.error(
          { worker: slot.number, pid: worker.process.pid, lost: held, reason: 'worker_exit' },
          `worker ${slot.number} (pid ${worker.process.pid}) exited ${how} holding ${held} requests (its last report): their clients' connections were cut and they have no record; counted in tokenmeter_requests_lost_total{reason="worker_exit"}`,
        );
      }
      if (stopping) {
        // One still starting was ended by the primary's own SIGTERM (stopAll): that is no failure.
        const endedByUs = !wasListening && signal === 'SIGTERM';
        if (code !== 0 && !endedByUs && exitStatus === 0) exitStatus = code ?? 1;
        finishIfAllExited();
        return;
      }
      if (!announced) {
        // A worker that cannot start (a port in use, a certificate unreadable) fails the whole start, as a single
        // gateway would: its own message said why.
        logger.error(
          `worker ${slot.number} (pid ${worker.process.pid}) exited ${how} before the gateway was up`,
        );
        stopping = true;
        exitStatus = code === null || code === 0 ? 1 : code;
        stopAll('tokenmeter:cut', 'SIGTERM');
        finishIfAllExited();
        return;
      }
      const livedMs = performance.now() - slot.startedAt;
      const delay = slot.backoff.next(livedMs);
      logger.error(
        { worker: slot.number, pid: worker.process.pid, code, signal, livedMs: Math.round(livedMs) },
        `worker ${slot.number} (pid ${worker.process.pid}) exited ${how} after ${(livedMs / 1000).toFixed(1)} s; a replacement starts in ${delay} ms`,
      );
      logger.flush();
      slot.restartTimer = setTimeout(fork, delay, slot);
    });

    /** logrotate's `kill -HUP` reaches the primary alone: every worker reopens its records file. */
    const onHangup = (): void => {
      info.info('SIGHUP: every worker reopens its records file');
      for (const worker of live()) if (listening.has(worker)) send(worker, { type: 'tokenmeter:reopen' });
    };

    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
    process.on('SIGHUP', onHangup);
    for (const slot of slots) fork(slot);
  });
}

// When the primary starts a replacement for a worker that died: at once-ish after a worker that had run a
// while, and twice as late after each worker in that slot that died soon after it started, up to a ceiling. So a
// worker killed once is back within a tenth of a second, and one that crashes at start (a bad upstream
// certificate, a full disk at open) is retried every half minute rather than spinning a core.
export const FIRST_RESTART_DELAY_MS = 100;
export const MAX_RESTART_DELAY_MS = 30_000;
/** A worker that lived this long counts as having run: its slot's backoff starts over. */
export const STABLE_AFTER_MS = 10_000;

export class RestartBackoff {
  #quickDeaths = 0;

  /** The delay before the next start, given how long the worker that just died had lived. */
  next(livedMs: number): number {
    if (livedMs >= STABLE_AFTER_MS) this.#quickDeaths = 0;
    const delay = Math.min(MAX_RESTART_DELAY_MS, FIRST_RESTART_DELAY_MS * 2 ** this.#quickDeaths);
    this.#quickDeaths++;
    return delay;
  }
}
