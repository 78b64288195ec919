// The summary block of vLLM's serving benchmark, byte for byte: people compare it with runs made with vLLM's
// own script, and scripts grep it. Rows are Python's "{:<40} {:<10}" (whole numbers) and "{:<40} {:<10.2f}"
// (everything else, including "Peak concurrent requests", which vLLM prints as a float); section headers are
// 50 wide, centred with '-'. Which latency sections appear follows --percentile-metrics. After them, when the
// server's counters show speculative decoding over the run, vLLM's "Speculative Decoding" section; with
// --probe-request-rate, its "Probe Requests" section between the throughputs and the latency sections.

import type { GpuMetricsRun } from '../gpu-metrics/gpu-tracks.js';
import type { PercentileMetric } from '../metrics/metric-options.js';
import type { MetricStats } from '../metrics/numpy-stats.js';
import type { VllmMetrics } from '../metrics/vllm-metrics.js';
import type { SpecDecodeStats } from '../server-metrics/spec-decode.js';
import { centre, fixed2, padRight, percentileWord } from './python-format.js';

const WIDTH = 50;

export interface VllmSummaryOptions {
  /** --max-concurrency; the row is printed only when set. */
  maxConcurrency?: number;
  /** --request-rate; the row is printed only when finite. */
  requestRate: number;
  /** --percentile-metrics, in the order given (vLLM prints sections in its own fixed order regardless). */
  percentileMetrics: readonly PercentileMetric[];
}

/** --probe-request-rate's probes as vLLM reports them (loadgen/bench/probe-requests.ts measures them). */
export interface ProbeStats {
  readonly completed: number;
  readonly failed: number;
  /** End-to-end latency of the probes that succeeded (numpy's median and linear percentile), in ms. */
  readonly medianE2elMs: number;
  readonly p99E2elMs: number;
  readonly maxE2elMs: number;
}

/** What vLLM's summary and result add when the run has it. */
export interface VllmRunSections {
  /** --probe-request-rate's probes (loadgen/bench/probe-requests.ts). */
  probes?: ProbeStats;
  /** The server's speculative decoding over the run (loadgen/server-metrics/spec-decode.ts). */
  specDecode?: SpecDecodeStats;
  /** The GPUs' figures over the run (loadgen/gpu-metrics/): vLLM's energy keys in the result JSON. */
  gpu?: GpuMetricsRun;
}

/** vLLM's sections in its fixed order, each printed when selected and measured (the queue ones need
 *  --max-concurrency, the last a finite rate as well). */
export const SECTIONS: ReadonlyArray<{ metric: PercentileMetric; name: string; header: string }> = [
  { metric: 'ttft', name: 'TTFT', header: 'Time to First Token' },
  { metric: 'tpot', name: 'TPOT', header: 'Time per Output Token (excl. 1st token)' },
  { metric: 'itl', name: 'ITL', header: 'Inter-token Latency' },
  { metric: 'e2el', name: 'E2EL', header: 'End-to-end Latency' },
  { metric: 'client_queue_time', name: 'Client Queue Time', header: 'Client-side Queueing' },
  {
    metric: 'e2el_including_client_queue',
    name: 'E2EL incl. Client Queue',
    header: 'Queue-inclusive End-to-end Latency',
  },
];

/** A selected metric's figures, when the run has them. */
export function statsOf(metrics: VllmMetrics, metric: PercentileMetric): MetricStats | undefined {
  return metric === 'client_queue_time' || metric === 'e2el_including_client_queue'
    ? metrics.queue[metric]
    : metrics.latency[metric];
}

export function intRow(label: string, value: number): string {
  return `${padRight(label, 40)} ${padRight(String(value), 10)}`;
}

export function floatRow(label: string, value: number): string {
  return `${padRight(label, 40)} ${padRight(fixed2(value), 10)}`;
}

/** vLLM's "Probe Requests" section: counts whole, latencies in ms. */
function probeRows(stats: ProbeStats): string[] {
  return [
    centre('Probe Requests', WIDTH, '-'),
    intRow('Probe requests completed:', stats.completed),
    intRow('Probe requests failed:', stats.failed),
    floatRow('Median probe E2EL (ms):', stats.medianE2elMs),
    floatRow('P99 probe E2EL (ms):', stats.p99E2elMs),
    floatRow('Max probe E2EL (ms):', stats.maxE2elMs),
  ];
}

/** vLLM's "Speculative Decoding" section: the rates as floats, the counts whole, each position in percent. */
function specDecodeRows(stats: SpecDecodeStats): string[] {
  const rows = [
    centre('Speculative Decoding', WIDTH, '-'),
    floatRow('Acceptance rate (%):', stats.acceptanceRate),
    floatRow('Acceptance length:', stats.acceptanceLength),
    intRow('Drafts:', stats.numDrafts),
    intRow('Draft tokens:', stats.draftTokens),
    intRow('Accepted tokens:', stats.acceptedTokens),
  ];
  if (stats.perPositionAcceptanceRates.length > 0) {
    rows.push('Per-position acceptance (%):');
    stats.perPositionAcceptanceRates.forEach((rate, i) => {
      rows.push(floatRow(`  Position ${i}:`, rate * 100));
    });
  }
  return rows;
}

/** The summary as printed, one line per row, ending with a newline. */
export function formatVllmSummary(
  metrics: VllmMetrics,
  options: VllmSummaryOptions,
  sections: VllmRunSections = {},
): string {
  const lines: string[] = [centre(' Serving Benchmark Result ', WIDTH, '=')];
  lines.push(intRow('Successful requests:', metrics.completed));
  lines.push(intRow('Failed requests:', metrics.failed));
  if (options.maxConcurrency !== undefined)
    lines.push(intRow('Maximum request concurrency:', options.maxConcurrency));
  if (Number.isFinite(options.requestRate))
    lines.push(floatRow('Request rate configured (RPS):', options.requestRate));
  lines.push(floatRow('Benchmark duration (s):', metrics.durationS));
  lines.push(intRow('Total input tokens:', metrics.totalInput));
  lines.push(intRow('Total generated tokens:', metrics.totalOutput));
  lines.push(floatRow('Request throughput (req/s):', metrics.requestThroughput));
  if (metrics.requestGoodput !== null)
    lines.push(floatRow('Request goodput (req/s):', metrics.requestGoodput));
  lines.push(floatRow('Output token throughput (tok/s):', metrics.outputThroughput));
  lines.push(floatRow('Peak output token throughput (tok/s):', metrics.maxOutputTokensPerS));
  lines.push(floatRow('Peak concurrent requests:', metrics.maxConcurrentRequests));
  lines.push(floatRow('Total token throughput (tok/s):', metrics.totalTokenThroughput));
  if (sections.probes !== undefined) lines.push(...probeRows(sections.probes));
  for (const { metric, name, header } of SECTIONS) {
    const stats = statsOf(metrics, metric);
    if (!options.percentileMetrics.includes(metric) || stats === undefined) continue;
    lines.push(centre(header, WIDTH, '-'));
    lines.push(floatRow(`Mean ${name} (ms):`, stats.mean));
    lines.push(floatRow(`Median ${name} (ms):`, stats.median));
    for (const [p, value] of stats.percentiles)
      lines.push(floatRow(`P${percentileWord(p)} ${name} (ms):`, value));
  }
  if (sections.specDecode !== undefined) lines.push(...specDecodeRows(sections.specDecode));
  lines.push('='.repeat(WIDTH));
  return `${lines.join('\n')}\n`;
}
