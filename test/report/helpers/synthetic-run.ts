// Test helper: result files built the way `bench` builds them (records -> vllmMetrics/extraMetrics ->
// buildResultJson), from synthetic per-request records, so the report and compare tests need no real run.

import { extraMetrics } from '../../../loadgen/metrics/extra-metrics.js';
import { vllmMetrics } from '../../../loadgen/metrics/vllm-metrics.js';
import type { RequestRecord } from '../../../loadgen/record.js';
import { buildResultJson, type RunDescription } from '../../../loadgen/report/result-json.js';
import type { JsonValueObject } from '../../../src/shared/json-object.js';

export const FIXED_DATE = new Date(2025, 0, 2, 3, 4, 5);

export function okRecord(
  index: number,
  sentAtMs: number,
  ttftMs: number,
  gapsMs: number[],
  promptTokens = 10,
): RequestRecord {
  const lastTokenMs = ttftMs + gapsMs.reduce((a, b) => a + b, 0);
  return {
    index,
    intendedOffsetMs: sentAtMs,
    sentAtMs,
    clientQueueMs: 0,
    ttfbMs: Math.max(0, ttftMs - 5),
    ttftMs,
    itlMs: gapsMs,
    lastTokenMs,
    outputTokens: gapsMs.length + 1,
    outputTokensSource: 'usage',
    promptTokens,
    contentChunks: gapsMs.length + 1,
    outcome: 'ok',
    status: 200,
    error: null,
    errorBodyExcerpt: null,
    generatedTextLength: 4 * (gapsMs.length + 1),
  };
}

export function failedRecord(index: number, sentAtMs: number, status: number, body: string): RequestRecord {
  return {
    ...okRecord(index, sentAtMs, 0, []),
    ttfbMs: 3,
    ttftMs: null,
    lastTokenMs: null,
    outputTokens: 0,
    contentChunks: 0,
    outcome: 'http_error',
    status,
    error: `${status} ${status === 404 ? 'Not Found' : 'Error'}`,
    errorBodyExcerpt: body,
    generatedTextLength: 0,
  };
}

export interface ResultOptions extends Partial<RunDescription> {
  detailed?: boolean;
  durationMs?: number;
  percentiles?: number[];
}

/** The result JSON `bench --save-result [--save-detailed]` would write for these records. */
export function resultOf(records: readonly RequestRecord[], options: ResultOptions = {}): JsonValueObject {
  const { detailed = true, durationMs, percentiles = [99], ...overrides } = options;
  const end = Math.max(0, ...records.map((r) => (r.sentAtMs ?? 0) + (r.lastTokenMs ?? 0)));
  const metrics = vllmMetrics(records, { durationMs: durationMs ?? end, metricPercentiles: percentiles });
  const run: RunDescription = {
    date: FIXED_DATE,
    backend: 'openai-chat',
    modelId: 'Qwen/Qwen2.5-7B-Instruct',
    tokenizerId: 'Qwen/Qwen2.5-7B-Instruct',
    numPrompts: records.length,
    requestRate: 4,
    burstiness: 1,
    percentileMetrics: ['ttft', 'tpot', 'itl', 'e2el'],
    ...overrides,
  };
  // Round-trip through JSON, as a file on disk would be.
  return JSON.parse(
    JSON.stringify(buildResultJson(run, metrics, extraMetrics(records, percentiles), records, detailed)),
  ) as JsonValueObject;
}

/** Deterministic pseudo-random numbers in [0, 1) (a small LCG), so fixtures never change between runs. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

export interface SyntheticRunOptions {
  count: number;
  seed: number;
  ratePerS: number;
  ttftMs: number;
  gapMs: number;
  /** Every n-th request fails with this status and body. */
  failEvery?: number;
  failStatus?: number;
  failBody?: string;
}

/** A run with realistic spread: TTFT that grows as load builds up, jittered gaps with rare stalls. */
export function syntheticRecords(options: SyntheticRunOptions): RequestRecord[] {
  const random = seeded(options.seed);
  return Array.from({ length: options.count }, (_, i) => {
    const sentAtMs = (i * 1000) / options.ratePerS + random() * 50;
    if (options.failEvery !== undefined && i % options.failEvery === options.failEvery - 1) {
      return failedRecord(i, sentAtMs, options.failStatus ?? 500, options.failBody ?? 'boom');
    }
    const ttft = options.ttftMs * (0.7 + random() * 0.6) + i * 0.5;
    const tokens = 10 + Math.floor(random() * 40);
    const gaps = Array.from({ length: tokens - 1 }, () =>
      random() < 0.01 ? options.gapMs * 8 : options.gapMs * (0.6 + random() * 0.8),
    );
    return okRecord(i, sentAtMs, ttft, gaps, 50 + Math.floor(random() * 200));
  });
}
