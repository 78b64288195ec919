// How a gauge of one gateway worker combines into the whole gateway's /metrics under `serve --workers N`, where
// prom-client's choice (set when it defines the metric; 'sum' unless said otherwise) does not fit. Counters and
// histograms are always summed, histograms bucket by bucket. Gauges kept at 'sum' on purpose: in-flight requests
// (set at its definition), memory, heap, open file descriptors, active handles: the gateway's total.
import type { Aggregator, Registry } from 'prom-client';

const CHOSEN: Readonly<Record<string, Aggregator>> = {
  // prom-client omits it from an aggregate; the gateway is as old as its oldest worker.
  tokenmeter_process_start_time_seconds: 'min',
  // prom-client averages it; the requests that wait are those on the worst worker, so the worst is shown.
  tokenmeter_nodejs_eventloop_lag_seconds: 'max',
};

/** Sets the aggregator of each gauge in CHOSEN that `registry` holds. */
export function chooseWorkerAggregators(registry: Registry): void {
  for (const [name, aggregator] of Object.entries(CHOSEN)) {
    const metric = registry.getSingleMetric(name) as { aggregator?: Aggregator } | undefined;
    if (metric !== undefined) metric.aggregator = aggregator;
  }
}
