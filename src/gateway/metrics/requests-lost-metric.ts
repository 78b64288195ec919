// tokenmeter_requests_lost_total{reason}: requests that can have no record, because the process measuring them
// is gone. Its one reason today is `worker_exit`: under `serve --workers N`, the primary counts the requests a
// worker held when it died (killed, crashed), from what the worker last reported (cluster/worker.ts). Every
// gateway's registry defines it at 0, so a single process and each worker export the series from the start and a
// dashboard has it before the first loss; the primary adds its own count when it aggregates the workers' pages.
import { Counter, type Registry } from 'prom-client';

export const REQUESTS_LOST_REASONS = ['worker_exit'] as const;
export type RequestsLostReason = (typeof REQUESTS_LOST_REASONS)[number];

/** Defines the counter in `registry`, read at scrape time from `read` (which only grows). */
export function registerRequestsLost(registry: Registry, read: (reason: RequestsLostReason) => number): void {
  const counted: Record<RequestsLostReason, number> = { worker_exit: 0 };
  new Counter({
    name: 'tokenmeter_requests_lost_total',
    help: 'Requests that have no record because the process serving them is gone, by reason (worker_exit: a worker of serve --workers died holding them; counted by the primary from what the worker last reported)',
    labelNames: ['reason'],
    registers: [registry],
    collect() {
      for (const reason of REQUESTS_LOST_REASONS) {
        const now = read(reason);
        this.inc({ reason }, now - counted[reason]);
        counted[reason] = now;
      }
    },
  });
}
