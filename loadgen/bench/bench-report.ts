// What `tokenmeter bench` prints after a run: vLLM's summary byte for byte (people diff it against vLLM's), then
// our extras, latency from the intended send time, the gateway's view when there is one, the verdicts, and the
// run's cost and budget stop when it has them (loadgen/cost/cost-report.ts).

import { type OtlpExportSettings, shownTracesUrl } from '../../src/tracing/otlp-settings.js';
import type { SpanExportCounts } from '../../src/tracing/span-export.js';
import { formatCostReport } from '../cost/cost-report.js';
import { compareWithGateway, type GatewayComparison, readGatewayRecords } from '../gateway-timings.js';
import { type MetricStats, metricStats } from '../metrics/numpy-stats.js';
import type { RequestRecord } from '../record.js';
import { formatExtraSummary } from '../report/extra-summary.js';
import { interruptionLine } from '../report/interruption.js';
import { centre, padRight } from '../report/python-format.js';
import { formatVerdicts } from '../report/verdicts.js';
import { floatRow, formatVllmSummary } from '../report/vllm-summary.js';
import { type BenchRunResult, vllmSectionsOf } from './aggregate.js';
import { featureLines, featureText } from './features.js';
import { recordsLostLine } from './records-file.js';
import type { BenchSettings, DurationBound } from './settings.js';

function statRows(label: string, stats: MetricStats): string[] {
  if (stats.count === 0) return [`${padRight(`${label}:`, 40)} no data`];
  const rows = [floatRow(`Mean ${label} (ms):`, stats.mean), floatRow(`Median ${label} (ms):`, stats.median)];
  for (const [p, value] of stats.percentiles) rows.push(floatRow(`P${p} ${label} (ms):`, value));
  return rows;
}

function intendedSection(result: BenchRunResult, settings: BenchSettings): string[] {
  if (settings.engine === 'closed-loop') return [];
  const latency = intendedLatency(result.records, settings.metricPercentiles);
  return [
    centre('From intended send (no coordinated omission)', 50, '-'),
    ...statRows('TTFT', latency.ttft),
    ...statRows('E2EL', latency.e2el),
  ];
}

function gatewaySection(comparison: GatewayComparison | undefined): string[] {
  if (comparison === undefined) return [];
  return [
    centre(' Client vs tokenmeter gateway ', 50, '-'),
    `${padRight('Requests matched by x-request-id:', 40)} ${comparison.matched}`,
    ...statRows('client TTFT', comparison.clientTtft),
    ...statRows('gateway TTFT', comparison.gatewayTtft),
    ...statRows('client-gateway TTFT gap', comparison.addedTtft),
    ...statRows('gateway overhead', comparison.gatewayOverhead),
  ];
}

/** What bounded a --duration run: its time, or the --num-prompts cap reached first. */
function durationLine(result: BenchRunResult, bound: DurationBound): string {
  const capReached = bound.maxRequests !== undefined && result.records.length >= bound.maxRequests;
  const stop = capReached
    ? `--num-prompts ${bound.maxRequests} reached before --duration ${bound.ms / 1000} s`
    : `sending stopped at --duration ${bound.ms / 1000} s`;
  return `Duration: ${stop}; ${result.records.length} requests sent, those in flight at the end finished.\n`;
}

/** Where the client spans went: a trace missing in the collector is explained here, not guessed at. */
function spansLine(counts: SpanExportCounts, settings: OtlpExportSettings): string {
  return `Spans: ${counts.exported} exported to ${shownTracesUrl(settings)}, ${counts.dropped} dropped (queue full), ${counts.failed} failed to export.\n`;
}

export function formatBenchReport(
  result: BenchRunResult,
  settings: BenchSettings,
  gateway?: GatewayComparison,
): string {
  const context = {
    records: result.records,
    planned: result.planned,
    outputTokens: result.metrics.totalOutput,
  };
  const parts = [
    formatVllmSummary(
      result.metrics,
      {
        requestRate: settings.requestRate,
        percentileMetrics: settings.percentileMetrics,
        ...(settings.maxConcurrency === undefined ? {} : { maxConcurrency: settings.maxConcurrency }),
      },
      vllmSectionsOf(result),
    ),
    featureText(result.parts, 'after-summary', context),
    formatExtraSummary(result.extra),
  ];
  const more = [
    ...intendedSection(result, settings),
    ...gatewaySection(gateway),
    ...featureLines(result.parts, 'section', context),
  ];
  if (more.length > 0) parts.push(`${more.join('\n')}\n`);
  parts.push(formatVerdicts(result.verdicts));
  if (settings.duration !== undefined) parts.push(durationLine(result, settings.duration));
  parts.push(formatCostReport(result, settings.cost.price));
  if (result.spans !== undefined && settings.spanExport !== null)
    parts.push(spansLine(result.spans, settings.spanExport));
  parts.push(recordsLostLine(result.recordsCounts, result.recordsPath));
  parts.push(featureText(result.parts, 'closing', context));
  if (result.interruption !== undefined) parts.push(interruptionLine(result.interruption, result.planned));
  return parts.join('');
}

/** --smoke's closing words: the whole answer of the first failure, or the first answer when all went well. */
export function formatSmokeOutcome(result: BenchRunResult): string {
  const failure = result.smokeFailure;
  if (failure !== undefined) {
    return [
      `Smoke test FAILED at request #${failure.index}: ${failure.outcome}${failure.status === null ? '' : ` (HTTP ${failure.status})`}`,
      `  ${failure.error ?? ''}`,
      'The upstream answered:',
      failure.errorBodyExcerpt ?? failure.generatedText ?? '(no body)',
      '',
    ].join('\n');
  }
  const ok = result.records.filter((r) => r.outcome === 'ok');
  const first = ok[0];
  const lines = [`Smoke test passed: ${ok.length} of ${result.planned} requests succeeded.`];
  if (first?.generatedText !== undefined)
    lines.push(`First answer (request #${first.index}):`, first.generatedText);
  return `${lines.join('\n')}\n`;
}

/** The report of one run, with the gateway's view added when its records file was given (--gateway-records). */
export function loadgenSummaryFor(result: BenchRunResult, settings: BenchSettings): string {
  const gateway =
    settings.gatewayRecords === undefined
      ? undefined
      : compareWithGateway(
          result.records,
          readGatewayRecords(settings.gatewayRecords),
          settings.requestIdPrefix,
          settings.metricPercentiles,
        );
  return formatBenchReport(result, settings, gateway);
}

// ---- Latency from the intended send time ----
// Latency measured from when the schedule wanted each request sent, beside vLLM's (from the actual send). When
// the client queued a request (--max-concurrency) or sent it late, the user still waited from the intended
// moment; this is the coordinated-omission-free figure (Gil Tene), and the gap between the two says how much
// the client side added.

interface IntendedLatency {
  ttft: MetricStats;
  e2el: MetricStats;
}

function intendedLatency(records: readonly RequestRecord[], percentiles: readonly number[]): IntendedLatency {
  const ttfts: number[] = [];
  const e2els: number[] = [];
  for (const r of records) {
    if (r.outcome !== 'ok' || r.sentAtMs === null) continue;
    const delay = r.sentAtMs - r.intendedOffsetMs;
    if (r.ttftMs !== null) ttfts.push(r.ttftMs + delay);
    if (r.lastTokenMs !== null) e2els.push(r.lastTokenMs + delay);
  }
  return { ttft: metricStats(ttfts, percentiles), e2el: metricStats(e2els, percentiles) };
}
