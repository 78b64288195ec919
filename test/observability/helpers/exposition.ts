// A reader for the Prometheus text exposition format, just enough to compare a live /metrics page with the
// committed contract: families (from # TYPE), their label names and values, and histogram buckets.

export interface MetricFamily {
  readonly name: string;
  readonly type: string;
  readonly help: string;
  /** Label name -> every value seen (`le` of histograms excluded: it is the bucket, not a dimension). */
  readonly labels: Map<string, Set<string>>;
  /** Upper bounds of a histogram's buckets, `+Inf` excluded, in page order (deduplicated). */
  readonly buckets: number[];
  samples: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;
const HISTOGRAM_SUFFIXES = ['_bucket', '_sum', '_count'];

function familyOf(sampleName: string, families: Map<string, MetricFamily>): MetricFamily | undefined {
  const direct = families.get(sampleName);
  if (direct !== undefined) return direct;
  for (const suffix of HISTOGRAM_SUFFIXES) {
    if (!sampleName.endsWith(suffix)) continue;
    const family = families.get(sampleName.slice(0, -suffix.length));
    if (family?.type === 'histogram' || family?.type === 'summary') return family;
  }
  return undefined;
}

export function parseExposition(text: string): Map<string, MetricFamily> {
  const families = new Map<string, MetricFamily>();
  const helps = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line.startsWith('# HELP ')) {
      const [name = '', ...rest] = line.slice(7).split(' ');
      helps.set(name, rest.join(' '));
      continue;
    }
    if (line.startsWith('# TYPE ')) {
      const [name = '', type = ''] = line.slice(7).split(' ');
      families.set(name, {
        name,
        type,
        help: helps.get(name) ?? '',
        labels: new Map(),
        buckets: [],
        samples: 0,
      });
      continue;
    }
    if (line === '' || line.startsWith('#')) continue;
    const match = SAMPLE.exec(line);
    if (match === null) throw new Error(`unreadable exposition line: ${line}`);
    const family = familyOf(match[1] ?? '', families);
    if (family === undefined) throw new Error(`sample without a # TYPE line: ${line}`);
    family.samples++;
    for (const [, label = '', value = ''] of (match[2] ?? '').matchAll(LABEL)) {
      if (label === 'le' && family.type === 'histogram') {
        const bound = Number(value);
        if (Number.isFinite(bound) && !family.buckets.includes(bound)) family.buckets.push(bound);
        continue;
      }
      const values = family.labels.get(label) ?? new Set<string>();
      values.add(value);
      family.labels.set(label, values);
    }
  }
  return families;
}
