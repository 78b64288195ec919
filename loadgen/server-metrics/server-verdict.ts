// What bounded the server, from its own metrics, with the numbers and the vLLM setting that moves the bound:
// - memory-bound: KV cache usage reached MEMORY_BOUND_KV_USAGE and sequences were preempted (vLLM evicts a running
//   sequence's blocks and recomputes it later when a step needs a block and none is free);
// - concurrency-bound: requests waited while running sat at its largest value (the --max-num-seqs cap, once the
//   server is full) in at least CAP_SHARE of those samples, with KV to spare;
// - neither: the limit is elsewhere (compute, the network or the client), and the server's TTFT against the
//   client's says which, with its numbers.
// The server's TTFT against the client's says how much of the client's wait the server accounts for, without
// spans. Used by bench's verdicts (verdictsWithServer: the TTFT verdict defers to it) and by the sweep's knee.

import type { HintContext } from '../../src/shared/upstream-hints.js';
import { breakdownFeature } from '../breakdown/breakdown-feature.js';
import type { BreakdownSummary } from '../breakdown/request-breakdown.js';
import { type FeatureParts, partOf } from '../feature.js';
import type { ExtraMetrics } from '../metrics/extra-metrics.js';
import type { RequestRecord } from '../record.js';
import { DEFAULT_VERDICT_THRESHOLDS, type Verdict, verdicts } from '../report/verdicts.js';
import type { ServerMetricsRun } from './server-metrics-feature.js';
import { type ClientTtft, clientTtftOf, serverMetricsFeature } from './server-metrics-feature.js';
import type { ServerSummary } from './server-summary.js';

export const MEMORY_BOUND_KV_USAGE = 0.95;
export const CAP_SHARE = 0.5;
/** Samples with requests waiting below this say nothing about a cap (one sample can catch a burst). */
const MIN_WAITING_SAMPLES = 2;

export type ServerBound = 'memory-bound' | 'concurrency-bound' | 'neither';

export interface ServerDiagnosis {
  readonly bound: ServerBound;
  /** One sentence, with its numbers and, when bound, the flags to change. */
  readonly sentence: string;
}

const preemptionsText = (s: ServerSummary): string =>
  s.preemptions === null ? 'preemptions not exported' : `${s.preemptions} preemptions`;
const pct = (share: number): string => `${(share * 100).toFixed(1)}%`;

/** `client`: the client's TTFT over the same requests, which the neither case sets the server's against. */
export function diagnoseServer(s: ServerSummary, client: ClientTtft | null = null): ServerDiagnosis {
  const kv = s.peakKvUsage;
  const preempted = s.preemptions ?? 0;
  if (kv !== null && kv >= MEMORY_BOUND_KV_USAGE && preempted > 0) {
    return {
      bound: 'memory-bound',
      sentence:
        `memory-bound: KV cache usage peaked at ${pct(kv)} and the server preempted ${preempted} sequence` +
        `${preempted === 1 ? '' : 's'} for want of KV blocks (${s.maxWaiting ?? 0} requests waiting at most): ` +
        'raise --gpu-memory-utilization, lower --max-model-len or --max-num-seqs, or add replicas',
    };
  }
  const atCap = s.samplesWaitingAtRunningCap;
  if (
    s.maxRunning !== null &&
    s.samplesWaiting >= MIN_WAITING_SAMPLES &&
    atCap >= CAP_SHARE * s.samplesWaiting &&
    (kv === null || kv < MEMORY_BOUND_KV_USAGE)
  ) {
    const room =
      kv === null
        ? 'KV cache usage not exported, so memory is not ruled out'
        : `KV cache usage peaked at ${pct(kv)}, room to spare`;
    return {
      bound: 'concurrency-bound',
      sentence:
        `concurrency-bound: running stayed at ${s.maxRunning} (its cap) in ${atCap} of the ${s.samplesWaiting} samples ` +
        `with requests waiting (up to ${s.maxWaiting ?? 0}), ${preemptionsText(s)}, ${room}: raise --max-num-seqs ` +
        '(or add replicas)',
    };
  }
  const kvText = kv === null ? 'KV cache usage not exported' : `KV cache usage peaked at ${pct(kv)}`;
  const split =
    ttftSplit(s, client) ??
    (s.serverTtft === null
      ? 'the server exports no TTFT histogram to split its share from the rest'
      : `the server's own TTFT p50 is ${s.serverTtft.p50Ms.toFixed(2)} ms, with no client TTFT to set it against`);
  return {
    bound: 'neither',
    sentence:
      `neither memory- nor concurrency-bound (${kvText}, ${preemptionsText(s)}, requests waited in ` +
      `${s.samplesWaiting} of ${s.samples} samples), so the time went to the server's compute, the network or the ` +
      `client: ${split}`,
  };
}

/** "the server's own TTFT p50 is 40.00 ms (77%) of the client's 52.10 ms (...): 12.10 ms (23%) is outside the
 *  server (...)" */
export function ttftSplit(s: ServerSummary, client: ClientTtft | null): string | undefined {
  if (s.serverTtft === null || client === null || client.p50Ms <= 0) return undefined;
  const outside = client.p50Ms - s.serverTtft.p50Ms;
  const share = Math.min(s.serverTtft.p50Ms / client.p50Ms, 1);
  return (
    `the server's own TTFT p50 is ${s.serverTtft.p50Ms.toFixed(2)} ms (${(share * 100).toFixed(0)}%) of the client's ${client.p50Ms.toFixed(2)} ms ` +
    `(p99 ${s.serverTtft.p99Ms.toFixed(2)} of ${client.p99Ms.toFixed(2)}): ` +
    (outside > 0
      ? `${outside.toFixed(2)} ms (${((outside / client.p50Ms) * 100).toFixed(0)}%) is outside the server (network, gateway, client)`
      : 'the server accounts for all of it, within its histogram buckets')
  );
}

/** The verdict that attributes a TTFT spread, a low success rate, or a bound reached, to what the server's
 *  metrics show; undefined without server metrics, or with nothing to attribute. */
export function serverVerdict(
  run: ServerMetricsRun | undefined,
  others: readonly Verdict[],
  client: ClientTtft | null,
): Verdict | undefined {
  if (run === undefined || !run.available) return undefined;
  const diagnosis = diagnoseServer(run.summary, client);
  const attributes = others.filter((v) => v.kind === 'ttft-spread' || v.kind === 'low-success-rate');
  if (attributes.length === 0 && diagnosis.bound === 'neither') return undefined;
  const what =
    attributes.length === 0 ? '' : ` (behind the ${attributes.map((v) => v.kind).join(' and ')} above)`;
  // The neither case's sentence is the split already.
  const split = diagnosis.bound === 'neither' ? undefined : ttftSplit(run.summary, client);
  return {
    kind: 'server-bound',
    message: `server${what}: ${diagnosis.sentence}${split === undefined ? '' : `; ${split}`}.`,
  };
}

/** The run's verdicts and, after them, what the server's metrics attribute them to. With server metrics the TTFT
 *  verdict defers to the server's verdict instead of calling its cause unknown. */
export function verdictsWithServer(
  records: readonly RequestRecord[],
  extra: ExtraMetrics,
  run: ServerMetricsRun | undefined,
  client: ClientTtft | null,
  context: { readonly target?: HintContext; readonly breakdown?: BreakdownSummary } = {},
): Verdict[] {
  const found = verdicts(
    records,
    extra,
    DEFAULT_VERDICT_THRESHOLDS,
    context.target,
    context.breakdown,
    run?.available === true,
  );
  // A run where no request succeeded (a 401, a 404) is not a capacity question: the server's load says nothing
  // about why, and the failures verdict already says what to fix.
  const server = records.some((r) => r.outcome === 'ok') ? serverVerdict(run, found, client) : undefined;
  return server === undefined ? found : [...found, server];
}

/** A run's verdicts from its measured records and its features' parts: what the server's metrics and the breakdown
 *  attribute them to (bench, the workers' merged run and `tokenmeter merge` alike). */
export function runVerdicts(
  measured: readonly RequestRecord[],
  extra: ExtraMetrics,
  parts: FeatureParts,
  target?: HintContext,
): Verdict[] {
  const breakdown = partOf(parts, breakdownFeature)?.summary;
  return verdictsWithServer(
    measured,
    extra,
    partOf(parts, serverMetricsFeature)?.run,
    clientTtftOf(measured),
    {
      ...(target === undefined ? {} : { target }),
      ...(breakdown === undefined ? {} : { breakdown }),
    },
  );
}
