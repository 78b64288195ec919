// One reading of an inference server's `/metrics` page: the figures of server-metric-names.ts, each under the
// first of its names the page carries, summed over the page's label sets (one per engine and model; a share such
// as KV usage takes the fullest engine's). A page with none of these names is not a vLLM or SGLang page: null.

import type { CumulativeBucket } from '../../src/shared/prometheus-text.js';
import { parseSamples, type Sample } from '../../src/shared/prometheus-text.js';
import {
  COUNTER_NAMES,
  type CounterFigure,
  familyOf,
  GAUGE_NAMES,
  type GaugeFigure,
  HISTOGRAM_NAMES,
  type HistogramFigure,
  isServerMetricName,
  LARGEST_NOT_SUM,
  type ServerFamily,
  SPEC_ACCEPTED_PER_POSITION,
} from './server-metric-names.js';

export interface ServerReading {
  readonly family: ServerFamily;
  /** Per figure, its value, or null when the page has none of its names. */
  readonly gauges: Readonly<Record<GaugeFigure, number | null>>;
  readonly counters: Readonly<Record<CounterFigure, number | null>>;
  /** Cumulative buckets by `le`, +Inf last, summed over label sets. */
  readonly histograms: Readonly<Record<HistogramFigure, readonly CumulativeBucket[] | null>>;
  /** vLLM's accepted drafts by draft position (its `position` label), summed over engines; null when absent. */
  readonly specAcceptedPerPosition: Readonly<Record<string, number>> | null;
  /** The name each figure was read under (which release's names the page has). */
  readonly names: Readonly<Record<string, string>>;
}

const DECLARED = /^# TYPE (vllm|sglang):/m;

function firstPresent(byName: ReadonlyMap<string, Sample[]>, names: readonly string[]): string | undefined {
  return names.find((name) => byName.has(name));
}

function bucketsOf(samples: readonly Sample[]): CumulativeBucket[] {
  const byLe = new Map<number, number>();
  for (const sample of samples) {
    const le = Number(sample.labels['le'] === '+Inf' ? Number.POSITIVE_INFINITY : sample.labels['le']);
    if (Number.isNaN(le)) continue;
    byLe.set(le, (byLe.get(le) ?? 0) + sample.value);
  }
  return [...byLe.entries()].sort((a, b) => a[0] - b[0]).map(([le, count]) => ({ le, count }));
}

export function readServerPage(page: string): ServerReading | null {
  const byName = new Map<string, Sample[]>();
  for (const sample of parseSamples(page, isServerMetricName)) {
    const list = byName.get(sample.name);
    if (list === undefined) byName.set(sample.name, [sample]);
    else list.push(sample);
  }
  // A server that has served nothing yet may declare its metrics (HELP and TYPE lines) before it has a sample
  // of them (prom-client creates a labelled series on first use): still its page, with every figure unknown.
  const declared = byName.size === 0 ? DECLARED.exec(page) : null;
  if (byName.size === 0 && declared === null) return null;
  const names: Record<string, string> = {};
  const values = (figure: string, list: readonly string[]): Sample[] | null => {
    const name = firstPresent(byName, list);
    if (name === undefined) return null;
    names[figure] = name;
    return byName.get(name) ?? null;
  };
  const gauges = {} as Record<GaugeFigure, number | null>;
  for (const [figure, list] of Object.entries(GAUGE_NAMES) as [GaugeFigure, readonly string[]][]) {
    const samples = values(figure, list);
    const numbers = samples?.map((s) => s.value) ?? [];
    gauges[figure] =
      samples === null ? null : LARGEST_NOT_SUM.has(figure) ? Math.max(...numbers) : sum(numbers);
  }
  const counters = {} as Record<CounterFigure, number | null>;
  for (const [figure, list] of Object.entries(COUNTER_NAMES) as [CounterFigure, readonly string[]][]) {
    const samples = values(figure, list);
    counters[figure] = samples === null ? null : sum(samples.map((s) => s.value));
  }
  const histograms = {} as Record<HistogramFigure, CumulativeBucket[] | null>;
  for (const [figure, list] of Object.entries(HISTOGRAM_NAMES) as [HistogramFigure, readonly string[]][]) {
    const samples = values(
      figure,
      list.map((n) => `${n}_bucket`),
    );
    histograms[figure] = samples === null ? null : bucketsOf(samples);
  }
  const byPosition = byName.get(SPEC_ACCEPTED_PER_POSITION);
  let specAcceptedPerPosition: Record<string, number> | null = null;
  if (byPosition !== undefined) {
    specAcceptedPerPosition = {};
    for (const sample of byPosition) {
      const position = sample.labels['position'];
      if (position === undefined) continue;
      specAcceptedPerPosition[position] = (specAcceptedPerPosition[position] ?? 0) + sample.value;
    }
  }
  const first = (byName.keys().next().value as string | undefined) ?? `${declared?.[1]}:`;
  return {
    family: familyOf(first) ?? 'vllm',
    gauges,
    counters,
    histograms,
    specAcceptedPerPosition,
    names,
  };
}

function sum(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0);
}
