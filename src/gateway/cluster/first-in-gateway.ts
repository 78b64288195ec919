// Once-per-gateway log lines across workers: a worker that meets something worth one line (a client path pattern
// that needed fixing) asks the primary whether any worker met it before, and logs only when told it is the
// first. Without a primary (a single process) the caller's own memory is the gateway's, so it logs at once.
import cluster from 'node:cluster';
import { toWorker } from './messages.js';
import { sendToPrimary } from './worker.js';

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
