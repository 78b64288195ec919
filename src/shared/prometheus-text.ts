// Reads a Prometheus text exposition page (a gateway's or an inference server's `/metrics`) into flat samples:
// sample lines with their labels and value; comments, HELP and TYPE lines are skipped, since the readers know the
// names they want (`tokenmeter top` the metrics contract's, docs/metrics.md; the load generator vLLM's and
// SGLang's, loadgen/server-metrics/). A histogram's buckets are its `_bucket` samples, each with its `le` label.
// PromQL's histogram_quantile over such buckets is at the end.

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const SAMPLE_LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL_PAIR = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;
const ESCAPED = /\\(.)/g;

function unescapeLabelValue(raw: string): string {
  return raw.replace(ESCAPED, (_, char: string) => (char === 'n' ? '\n' : char));
}

function sampleValue(raw: string): number {
  if (raw === '+Inf') return Number.POSITIVE_INFINITY;
  if (raw === '-Inf') return Number.NEGATIVE_INFINITY;
  return Number(raw);
}

/** Every sample on the page whose name passes `wanted`, in page order. */
export function parseSamples(text: string, wanted: (name: string) => boolean): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = SAMPLE_LINE.exec(line);
    if (match === null || !wanted(match[1] as string)) continue;
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(LABEL_PAIR)) {
      labels[pair[1] as string] = unescapeLabelValue(pair[2] as string);
    }
    samples.push({ name: match[1] as string, labels, value: sampleValue(match[3] as string) });
  }
  return samples;
}

// ---- histogram quantile ----
// PromQL's histogram_quantile over classic buckets, step for step as Prometheus computes it (promql/quantile.go,
// bucketQuantile): rank = q x count, the first bucket whose cumulative count reaches the rank, then linear
// interpolation between that bucket's lower and upper bound (the first bucket's lower bound is 0). A rank in the
// +Inf bucket answers the highest finite bound. The operations are in Prometheus's order, so the float64 result
// is the one Prometheus prints (test/observability/histogram-buckets.test.ts checks it against promtool).
// Bucket counts are a histogram's totals or their increase over a window: `rate()` would scale them all alike.
// Used by `tokenmeter top` and by the histogram-error benchmark.

/** One classic bucket as exposed: its upper bound (`le`) and the cumulative count of observations up to it. */
export interface CumulativeBucket {
  readonly le: number;
  readonly count: number;
}

/** `histogram_quantile(q, buckets)`; NaN with no observations, like Prometheus. Buckets sorted by `le`, +Inf last. */
export function histogramQuantile(q: number, buckets: readonly CumulativeBucket[]): number {
  const last = buckets.at(-1);
  if (last === undefined || last.le !== Number.POSITIVE_INFINITY || buckets.length < 2) return Number.NaN;
  const observations = last.count;
  if (observations === 0) return Number.NaN;
  let rank = q * observations;
  let b = 0;
  while (b < buckets.length - 1 && (buckets[b] as CumulativeBucket).count < rank) b++;
  if (b === buckets.length - 1) return (buckets[buckets.length - 2] as CumulativeBucket).le;
  const bucket = buckets[b] as CumulativeBucket;
  if (b === 0 && bucket.le <= 0) return bucket.le;
  let bucketStart = 0;
  let count = bucket.count;
  if (b > 0) {
    const below = buckets[b - 1] as CumulativeBucket;
    bucketStart = below.le;
    count -= below.count;
    rank -= below.count;
  }
  return bucketStart + (bucket.le - bucketStart) * (rank / count);
}
