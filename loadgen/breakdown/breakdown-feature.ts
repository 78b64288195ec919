// Where each completed request's time went, as a run feature (loadgen/feature.ts): every measured request split
// (request-breakdown.ts), joined with the gateway's records of the run when there are any (those the caller holds,
// else the file --gateway-records names, read as the run ends), summed up, saved as `tokenmeter.breakdown` and
// read back, and shown in the report's "Where TTFT goes" section. A merged run's breakdown is computed again from
// the union's records, as one process's is.
//
// In the result JSON (vLLM's keys untouched): the summary always, and with detailed results each split's basis and
// one array per segment, aligned by position (null = unknown), from which `tokenmeter report` rebuilds the splits
// for its charts and verdicts, so it draws and judges exactly what bench computed.

import { isJsonObject, type JsonValue, type JsonValueObject } from '../../src/shared/json-object.js';
import type { RunFeature } from '../feature.js';
import { type GatewaySide, gatewayRecordsByIndex, readGatewayRecords } from '../gateway-timings.js';
import type { RequestRecord } from '../record.js';
import { centre, padRight } from '../report/python-format.js';
import { tokenmeterSection } from '../report/result-fields.js';
import { breakdownPageSection } from './breakdown-charts.js';
import {
  assembleSplit,
  type BreakdownSummary,
  breakDownRun,
  partLabel,
  type RequestBreakdown,
  type RunBreakdown,
  requests,
  SEGMENT_NAMES,
  SEGMENTS,
  type SegmentName,
  type SegmentStats,
  type SplitBasis,
  segmentLabel,
  summarizeBreakdown,
} from './request-breakdown.js';

/** What the breakdown needs of the run's settings. */
export interface BreakdownSettings {
  /** A tokenmeter gateway's records file (--gateway-records). */
  readonly gatewayRecords?: string;
  /** x-request-id of request i is `${requestIdPrefix}${i}`: how the gateway's records are matched. */
  readonly requestIdPrefix: string;
}

export function runBreakdown(
  records: readonly RequestRecord[],
  gatewayRecords: readonly GatewaySide[],
  requestIdPrefix: string,
): RunBreakdown {
  const requests = breakDownRun(records, gatewayRecordsByIndex(gatewayRecords, requestIdPrefix));
  return { requests, summary: summarizeBreakdown(requests) };
}

export const breakdownFeature: RunFeature<BreakdownSettings, RunBreakdown, RunBreakdown, BreakdownSettings> =
  {
    name: 'breakdown',
    settingsOf: (run) => ({
      requestIdPrefix: run.requestIdPrefix,
      ...(run.gatewayRecords === undefined ? {} : { gatewayRecords: run.gatewayRecords }),
    }),
    aggregate(settings, records) {
      if (settings === undefined) return undefined;
      const gateway =
        records.gatewayRecords ??
        (settings.gatewayRecords === undefined ? [] : readGatewayRecords(settings.gatewayRecords));
      return runBreakdown(records.measured, gateway, settings.requestIdPrefix);
    },
    json: {
      write: breakdownKeys,
      read(result) {
        const requests = breakdownFromResult(result);
        return requests === null ? undefined : { requests, summary: summarizeBreakdown(requests) };
      },
    },
    report: { slot: 'section', lines: (breakdown) => formatBreakdownSection(breakdown.summary) },
    html: { slot: 'before-charts', section: (breakdown) => breakdownPageSection(breakdown.requests) },
  };

/** The per-request arrays of a split's basis, by their key in the file. */
export const BASIS_KEYS: Readonly<Record<string, keyof SplitBasis>> = Object.freeze({
  index: 'index',
  sent_at_ms: 'sentAtMs',
  prompt_tokens: 'promptTokens',
  ttft_ms: 'ttftMs',
  e2e_ms: 'e2eMs',
});

/** The key of a segment's per-request array: `server_queue_ms` for serverQueue. */
export function segmentKey(name: SegmentName): string {
  return `${name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}_ms`;
}

function breakdownJson(breakdown: RunBreakdown, detailed: boolean): { [key: string]: JsonValue } {
  const { summary } = breakdown;
  const json: { [key: string]: JsonValue } = {
    requests: summary.requests,
    complete: summary.complete,
    segments: Object.fromEntries(
      SEGMENT_NAMES.map((name) => {
        const stats = summary.segments[name];
        return [
          name,
          stats === null ? null : { count: stats.count, p50_ms: stats.p50Ms, p99_ms: stats.p99Ms },
        ];
      }),
    ),
    residual_ms:
      summary.residual === null ? null : { min: summary.residual.minMs, max: summary.residual.maxMs },
    negative: summary.negative,
    slowest_ttft:
      summary.slowest === null
        ? null
        : {
            count: summary.slowest.count,
            from_ttft_ms: summary.slowest.fromTtftMs,
            median_ttft_ms: summary.slowest.medianTtftMs,
            dominant: summary.slowest.dominant,
            dominant_in: summary.slowest.dominantIn,
            dominant_median_ms: summary.slowest.dominantMedianMs,
            dominant_median_all_ms: summary.slowest.dominantMedianAllMs,
          },
  };
  if (detailed) {
    const { requests } = breakdown;
    for (const [key, field] of Object.entries(BASIS_KEYS)) json[key] = requests.map((r) => r[field]);
    for (const name of SEGMENT_NAMES) json[segmentKey(name)] = requests.map((r) => r.segments[name]);
  }
  return json;
}

/** The keys the breakdown adds to the result's "tokenmeter" object: none when no request completed. */
export function breakdownKeys(breakdown: RunBreakdown, detailed: boolean): { [key: string]: JsonValue } {
  return breakdown.summary.requests === 0 ? {} : { breakdown: breakdownJson(breakdown, detailed) };
}

function numberAt(list: unknown, i: number): number | null {
  if (!Array.isArray(list)) return null;
  const value = list[i];
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

export function breakdownFromResult(json: JsonValueObject): RequestBreakdown[] | null {
  const saved = tokenmeterSection(json)['breakdown'];
  if (!isJsonObject(saved) || !Array.isArray(saved['index'])) return null;
  const splits: RequestBreakdown[] = [];
  for (let i = 0; i < saved['index'].length; i++) {
    const basis: Partial<Record<keyof SplitBasis, number>> = {};
    for (const [key, field] of Object.entries(BASIS_KEYS)) {
      const value = numberAt(saved[key], i);
      if (value !== null) basis[field] = value;
    }
    if (Object.keys(basis).length !== Object.keys(BASIS_KEYS).length) continue;
    const segments = Object.fromEntries(
      SEGMENT_NAMES.map((name) => [name, numberAt(saved[segmentKey(name)], i)]),
    ) as Record<SegmentName, number | null>;
    splits.push(assembleSplit(basis as SplitBasis, segments));
  }
  return splits;
}

/** Said instead of the section when the run knows no part of TTFT: its rows would all read "unknown". */
export const BREAKDOWN_UNKNOWN_LINE =
  "Where TTFT goes: not measured (needs the gateway's records, --gateway-records FILE, or the server's spans, " +
  '--span-receiver-port; docs/tracing.md)';

const ms = (value: number): string => `${value.toFixed(2)} ms`;

/**
 * The section, or one line when nothing in it is known. A plain run (no gateway records, no server spans) knows only
 * the client's own queue, which is not part of TTFT: its table would be eight rows of "unknown" and an
 * "unattributed" row that is really the whole latency, so it is left out and the line says how to get it. Once any
 * part of TTFT is known, every segment is shown, unknown ones as such, so the split is seen whole.
 */
export function formatBreakdownSection(summary: BreakdownSummary): string[] {
  if (summary.requests === 0) return [];
  const knowsTtft = SEGMENT_NAMES.some((name) => SEGMENTS[name].inTtft && summary.segments[name] !== null);
  if (!knowsTtft) return [BREAKDOWN_UNKNOWN_LINE];
  const lines = [
    centre(' Where TTFT goes ', 50, '-'),
    `${padRight('Requests split:', 40)} ${summary.requests}, ${summary.complete} with every segment known`,
    `${padRight('Segment', 30)} ${'p50 (ms)'.padStart(9)} ${'p99 (ms)'.padStart(9)}`,
  ];
  const row = (label: string, stats: SegmentStats | null): string =>
    stats === null
      ? `${padRight(label, 30)} ${'unknown'.padStart(9)}`
      : `${padRight(label, 30)} ${stats.p50Ms.toFixed(2).padStart(9)} ${stats.p99Ms.toFixed(2).padStart(9)}`;
  for (const name of SEGMENT_NAMES) lines.push(row(segmentLabel(name), summary.segments[name]));
  if (summary.complete < summary.requests)
    lines.push(row('unattributed (unknown segments)', summary.unattributed));
  if (summary.residual !== null)
    lines.push(
      `Residual (queue + E2E - segments): ${ms(summary.residual.minMs)} to ${ms(summary.residual.maxMs)}`,
    );
  if (summary.negative > 0)
    lines.push(
      `Negative segment or residual in ${requests(summary.negative)} (kept as measured; see docs/tracing.md)`,
    );
  const slow = summary.slowest;
  if (slow !== null) {
    lines.push(
      `Slowest 1% of TTFT (${requests(slow.count)}, TTFT >= ${ms(slow.fromTtftMs)}): ${partLabel(slow.dominant)} ` +
        `dominates in ${slow.dominantIn}, median ${ms(slow.dominantMedianMs)} of their median TTFT ` +
        `${ms(slow.medianTtftMs)} (all requests: ${ms(slow.dominantMedianAllMs)})`,
    );
  }
  lines.push('~ approximate: both network legs together; delivery includes the gateway relaying each chunk.');
  return lines;
}
