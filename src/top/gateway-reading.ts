// One reading of one gateway: the counters `top` computes its rows from, taken from a `/metrics` page. Every
// counter becomes one entry of a flat map, keyed by what it counts and its row, so the sliding window can
// subtract two readings key by key without knowing which metric a key came from.

import { parseSamples, type Sample } from '../shared/prometheus-text.js';

/** What each key counts: finished requests by outcome, output tokens, and the two histograms' buckets. */
export type CounterKind = 'finished' | 'output_tokens' | 'ttft_bucket' | 'gap_bucket';

export interface CounterKey {
  readonly kind: CounterKind;
  readonly upstream: string;
  readonly model: string;
  /** The outcome of a `finished` key, the bucket's upper bound (`le`) of a histogram key, else ''. */
  readonly detail: string;
}

export interface GatewayReading {
  readonly url: string;
  /** performance.now() when the page arrived: rates divide by the gap between two readings. */
  readonly atMs: number;
  readonly counters: ReadonlyMap<string, number>;
  readonly inFlight: number;
}

const SOURCES: Record<string, { kind: CounterKind; detailLabel: string | null; onlyOutput?: boolean }> = {
  tokenmeter_requests_total: { kind: 'finished', detailLabel: 'outcome' },
  tokenmeter_tokens_total: { kind: 'output_tokens', detailLabel: null, onlyOutput: true },
  tokenmeter_time_to_first_token_seconds_bucket: { kind: 'ttft_bucket', detailLabel: 'le' },
  tokenmeter_inter_token_gap_seconds_bucket: { kind: 'gap_bucket', detailLabel: 'le' },
};
const IN_FLIGHT = 'tokenmeter_requests_in_flight';
const SEPARATOR = '\u0000';

export function keyOf(key: CounterKey): string {
  return [key.kind, key.upstream, key.model, key.detail].join(SEPARATOR);
}

export function parseKey(text: string): CounterKey {
  const [kind, upstream = '', model = '', detail = ''] = text.split(SEPARATOR);
  return { kind: kind as CounterKind, upstream, model, detail };
}

/** The reading of one page, or null when the page is not a tokenmeter gateway's. */
export function readGatewayPage(url: string, atMs: number, page: string): GatewayReading | null {
  const samples = parseSamples(page, (name) => name === IN_FLIGHT || name in SOURCES);
  if (!samples.some((sample) => sample.name === IN_FLIGHT)) return null;
  const counters = new Map<string, number>();
  let inFlight = 0;
  for (const sample of samples) {
    if (sample.name === IN_FLIGHT) {
      inFlight += sample.value;
      continue;
    }
    const key = counterKeyOf(sample);
    // Labels top does not split rows by (status_class, and any added later) are summed into the row.
    if (key !== null) counters.set(key, (counters.get(key) ?? 0) + sample.value);
  }
  return { url, atMs, counters, inFlight };
}

function counterKeyOf(sample: Sample): string | null {
  const source = SOURCES[sample.name];
  if (source === undefined) return null;
  if (source.onlyOutput === true && sample.labels['type'] !== 'output') return null;
  return keyOf({
    kind: source.kind,
    upstream: sample.labels['upstream'] ?? '',
    model: sample.labels['model'] ?? '',
    detail: source.detailLabel === null ? '' : (sample.labels[source.detailLabel] ?? ''),
  });
}
