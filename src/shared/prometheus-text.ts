// Reads a Prometheus text exposition page (a gateway's or an inference server's `/metrics`) into flat samples:
// sample lines with their labels and value; comments, HELP and TYPE lines are skipped, since the readers know the
// names they want (`tokenmeter top` the metrics contract's, docs/metrics.md; the load generator vLLM's and
// SGLang's, loadgen/server-metrics/). A histogram's buckets are its `_bucket` samples, each with its `le` label.

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
