// The span receiver's counters (spanReceiver), read from its own counts at scrape time like
// tokenmeter_records_lost_total: they only grow, every label value is exported from the start at 0, and nothing
// is counted on the request path.
import { Counter, Gauge, type Registry } from 'prom-client';
import { MAX_SPANS_PER_EXPORT } from '../../tracing/receiver/export-limits.js';
import { EXPORT_RESULTS } from '../../tracing/receiver/span-receiver.js';
import type { SpanReceiving } from './span-receiving.js';

function counterOf<L extends string>(
  registry: Registry,
  name: string,
  help: string,
  label: string,
  values: readonly L[],
  read: (value: L) => number,
): void {
  const counted = new Map<L, number>(values.map((v) => [v, 0]));
  new Counter({
    name,
    help,
    labelNames: [label],
    registers: [registry],
    collect() {
      for (const value of values) {
        const now = read(value);
        this.inc({ [label]: value }, now - (counted.get(value) ?? 0));
        counted.set(value, now);
      }
    },
  });
}

export function registerSpanReceiverMetrics(registry: Registry, receiving: SpanReceiving): void {
  const { join, receiver, forwarder } = receiving;
  counterOf(
    registry,
    'tokenmeter_span_receiver_exports_total',
    'OTLP trace exports answered by the span receiver, by result (accepted, bad_request, too_large, unsupported, busy, unauthorized, incomplete)',
    'result',
    EXPORT_RESULTS,
    (result) => receiver.stats.exports[result],
  );
  const spans = {
    joined: () => join.stats.spansJoined,
    unmatched: () => join.stats.spansUnmatched,
    rejected: () => receiver.stats.rejectedSpans,
    over_limit: () => receiver.stats.overLimitSpans,
  };
  counterOf(
    registry,
    'tokenmeter_span_receiver_spans_total',
    `Spans received, by result: joined a request measured here, unmatched (dropped here), rejected (bad ids), over_limit (past the first ${MAX_SPANS_PER_EXPORT} of an export, not read)`,
    'result',
    ['joined', 'unmatched', 'rejected', 'over_limit'] as const,
    (result) => spans[result](),
  );
  const records = {
    joined: () => join.stats.recordsJoined,
    timed_out: () => join.stats.recordsTimedOut,
    evicted: () => join.stats.recordsEvicted,
    flushed: () => join.stats.recordsFlushed,
  };
  counterOf(
    registry,
    'tokenmeter_span_join_records_total',
    "Records written after the span receiver's wait, by result: joined (with server), timed_out, evicted (too many waiting), flushed (at shutdown)",
    'result',
    ['joined', 'timed_out', 'evicted', 'flushed'] as const,
    (result) => records[result](),
  );
  new Gauge({
    name: 'tokenmeter_span_join_waiting_records',
    help: "Finished requests' records waiting for their server's span",
    registers: [registry],
    collect() {
      this.set(join.waiting);
    },
  });
  if (forwarder === null) return;
  counterOf(
    registry,
    'tokenmeter_span_receiver_forwards_total',
    'Exports passed on to spanReceiver.forwardUrl, by result: forwarded (2xx), failed, dropped (queue full or shutdown)',
    'result',
    ['forwarded', 'failed', 'dropped'] as const,
    (result) => forwarder.stats[result],
  );
}
