// Plain-language conclusions printed after the numbers, so a user does not have to know what to look for:
// why requests failed (with the first body of each kind: vLLM shows only "Not Found"), whether the success
// rate is too low to read the rest, how wide the TTFT spread is and which requests sit in its tail, whether the
// load generator itself fell behind its schedule (then the numbers describe the client, not the server), and
// whether --max-concurrency, not the rate, set the load. Each verdict says what was measured, with its numbers,
// and names no cause it did not measure: the TTFT tail is put down to long prompts only by their correlation, to
// a segment only by the breakdown (loadgen/breakdown/), to the server verdict when the run read the server's metrics
// (loadgen/server-metrics/server-verdict.ts), else "cause unknown". The list and its rules: docs/loadgen.md.

import { DOUBLED_V1, type HintContext, hintForUpstreamStatus } from '../../src/shared/upstream-hints.js';
import {
  type BreakdownSummary,
  hasTtftSegments,
  partLabel,
  requests,
  type SlowestTtft,
} from '../breakdown/request-breakdown.js';
import type { ExtraMetrics, FailureKind } from '../metrics/extra-metrics.js';
import { mean, median, percentile } from '../metrics/numpy-stats.js';
import { type RequestRecord, scheduleLagMs } from '../record.js';
import { centre } from './python-format.js';

export interface VerdictThresholds {
  /** Below this share of completed requests, say so (the article's rule of thumb: 90%). */
  minSuccessRate: number;
  /** TTFT p99 above this multiple of the median: say how wide the spread is and who sits in its tail. */
  ttftP99OverMedian: number;
  /** Pearson's r of TTFT and prompt tokens from which a TTFT tail is put down to long prompts. */
  minPromptCorrelation: number;
  /** Schedule lag p99 above this (ms), over requests that had a moment to keep: the client fell behind. */
  scheduleLagP99Ms: number;
  /** At least this share of requests waited for a --max-concurrency slot: the cap set the load. */
  capWaitShare: number;
}

export const DEFAULT_VERDICT_THRESHOLDS: Readonly<VerdictThresholds> = Object.freeze({
  minSuccessRate: 0.9,
  ttftP99OverMedian: 3,
  minPromptCorrelation: 0.7,
  scheduleLagP99Ms: 10,
  capWaitShare: 0.1,
});

export type VerdictKind =
  | 'failures'
  | 'low-success-rate'
  | 'ttft-spread'
  | 'client-bottleneck'
  | 'concurrency-cap'
  /** From the server's own metrics: loadgen/server-metrics/server-verdict.ts. */
  | 'server-bound';

export interface Verdict {
  kind: VerdictKind;
  /** One or more lines, without trailing newline; the numbers behind the verdict are in it. */
  message: string;
}

const BODY_EXCERPT_CHARS = 300;

/** What usually causes a status with vLLM-style commands (see docs on --base-url and --backend), when the run's
 *  target is not known; with it, 401, 404 and 422 get the doctor's diagnosis (src/shared/upstream-hints.ts). */
const STATUS_HINTS: Readonly<Record<string, string>> = {
  '401':
    'the API key is missing or wrong (set --api-key or --api-key-env; anthropic-messages sends it as x-api-key, the other backends as Authorization: Bearer)',
  '404': `wrong URL: check --base-url and --endpoint (${DOUBLED_V1.what}: ${DOUBLED_V1.fix})`,
  '422':
    'the body does not fit the endpoint: /v1/chat/completions needs --backend openai-chat, /v1/completions openai, /v1/messages anthropic-messages, /v1/responses openai-responses',
  '429': 'rate limited by the server or provider: lower --request-rate or --max-concurrency',
};

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > BODY_EXCERPT_CHARS ? `${flat.slice(0, BODY_EXCERPT_CHARS)}...` : flat;
}

function hintFor(status: string, kind: FailureKind, target: HintContext | undefined): string | undefined {
  const diagnosed =
    target === undefined
      ? undefined
      : hintForUpstreamStatus(Number(status), { ...target, errorText: kind.firstBodyExcerpt ?? '' });
  return diagnosed ?? STATUS_HINTS[status];
}

function describeFailure(outcome: string, kind: FailureKind, target: HintContext | undefined): string {
  const answered = Object.values(kind.statuses).reduce((sum, count) => sum + count, 0);
  // Every request of the kind is in the parenthesis, those that got no status too, so the counts add up.
  const statuses = [
    ...Object.entries(kind.statuses).map(([status, count]) => `HTTP ${status} x${count}`),
    ...(answered > 0 && answered < kind.count ? [`no response x${kind.count - answered}`] : []),
  ].join(', ');
  const lines = [
    `${outcome}: ${kind.count} request${kind.count === 1 ? '' : 's'}${statuses === '' ? '' : ` (${statuses})`}`,
  ];
  lines.push(`  first, request #${kind.firstIndex}: ${kind.firstError ?? 'no error message'}`);
  if (kind.firstBodyExcerpt !== null && kind.firstBodyExcerpt !== '') {
    lines.push(`  body: ${oneLine(kind.firstBodyExcerpt)}`);
  }
  for (const status of Object.keys(kind.statuses)) {
    const hint = hintFor(status, kind, target);
    if (hint !== undefined) lines.push(`  hint (${status}): ${hint}`);
  }
  return lines.join('\n');
}

function percent(share: number): string {
  return `${(share * 100).toFixed(1)}%`;
}

const ms = (value: number): string => `${value.toFixed(2)} ms`;

/** The slow requests' mean prompt must be at least this multiple of the others' to be called "the long prompts". */
const PROMPT_RATIO = 1.5;

/**
 * Requests that had a moment to keep: a finite schedule's (intended after t = 0), or one that waited for a slot
 * (due when the slot freed). Requests due at t = 0 and sent without waiting (the opening burst of an `inf` run)
 * had no pace to fall behind: the time to dispatch a burst is not lateness.
 */
function hadAMomentToKeep(record: RequestRecord): boolean {
  return record.intendedOffsetMs > 0 || record.clientQueueMs > 0;
}

/** Pearson's r of two equally long lists; null when either does not vary (no correlation to speak of). */
function correlation(xs: readonly number[], ys: readonly number[]): number | null {
  const mx = mean(xs);
  const my = mean(ys);
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  xs.forEach((x, i) => {
    const dy = (ys[i] as number) - my;
    sxy += (x - mx) * dy;
    sxx += (x - mx) ** 2;
    syy += dy ** 2;
  });
  return sxx === 0 || syy === 0 ? null : sxy / Math.sqrt(sxx * syy);
}

/** Where to get the segments a run lacks, for "cause unknown". */
function missingSegmentData(breakdown: BreakdownSummary | undefined): string {
  const missing: string[] = [];
  if (breakdown?.segments.gateway == null)
    missing.push(
      "the gateway's side (run through `tokenmeter serve --records FILE` and pass --gateway-records FILE)",
    );
  if (breakdown?.segments.serverQueue == null)
    missing.push(
      "the server's queue and prefill (a span receiver: bench --span-receiver-port or the gateway's spanReceiver, " +
        "with vLLM's --otlp-traces-endpoint pointed at it)",
    );
  return missing.join('; ');
}

/**
 * The TTFT tail, explained only by what was measured: prompt length first (a tail of long prompts is not load),
 * then the segment of the breakdown that took most of the slowest 1%; without either, "cause unknown" and which
 * data would tell.
 */
function ttftSpread(
  records: readonly RequestRecord[],
  thresholds: VerdictThresholds,
  breakdown: BreakdownSummary | undefined,
  serverMetricsRead: boolean,
): Verdict | undefined {
  const overMedian = thresholds.ttftP99OverMedian;
  const ok = records.filter((r) => r.outcome === 'ok' && r.ttftMs !== null);
  if (ok.length === 0) return undefined;
  const ttfts = ok.map((r) => r.ttftMs as number);
  const middle = median(ttfts);
  const p99 = percentile(ttfts, 99);
  const slowest = breakdown?.slowest ?? null;
  const spread = middle > 0 && p99 > overMedian * middle;
  // A queue at the server that every request meets narrows the spread (each waits about as long): when the
  // breakdown measured it taking most of the slowest TTFTs, it is worth saying anyway.
  if (!spread && slowest?.dominant !== 'serverQueue') return undefined;
  // Without a spread, "slow" is the slowest 1% the breakdown picked.
  const slowFrom = spread ? overMedian * middle : (slowest as SlowestTtft).fromTtftMs;
  const slow = spread
    ? ok.filter((r) => (r.ttftMs as number) > slowFrom)
    : ok.filter((r) => (r.ttftMs as number) >= slowFrom);
  const rest = ok.filter((r) => (r.ttftMs as number) < slowFrom);
  const tokens = (list: readonly RequestRecord[]): number[] => list.map((r) => r.promptTokens);
  // Means, not medians: a few long prompts among slow requests that a busy host also made slow must still show.
  const slowPrompt = mean(tokens(slow));
  const restPrompt = rest.length === 0 ? Number.NaN : mean(tokens(rest));
  const r = correlation(tokens(ok), ttfts);
  const rText = r === null ? 'all prompts one length' : `r = ${r.toFixed(2)}`;
  const prompts =
    `the slow requests' prompts ${Math.min(...tokens(slow))}-${Math.max(...tokens(slow))} tokens (mean ` +
    `${slowPrompt.toFixed(0)}), the others' mean ${rest.length === 0 ? '-' : restPrompt.toFixed(0)}`;
  const longPrompts =
    r !== null && r >= thresholds.minPromptCorrelation && slowPrompt >= PROMPT_RATIO * restPrompt;
  const lines = [
    spread
      ? `TTFT p99 ${ms(p99)} is ${(p99 / middle).toFixed(1)}x the median ${ms(middle)}: ${slow.length} of ` +
        `${ok.length} requests took over ${overMedian}x the median.`
      : `TTFT p99 ${ms(p99)}, median ${ms(middle)}: ${slow.length} of ${ok.length} requests took ${ms(slowFrom)} or more.`,
    longPrompts
      ? `The slow TTFTs are the long prompts: TTFT rises with prompt length (${rText}); ${prompts} tokens.`
      : `Not the prompt length (TTFT against prompt tokens: ${rText}); ${prompts} tokens.`,
  ];
  const measured = breakdown !== undefined && hasTtftSegments(breakdown);
  if (measured && slowest !== null && slowest.dominant !== 'unattributed') {
    lines.push(
      `In the slowest 1% (${requests(slowest.count)}, TTFT >= ${ms(slowest.fromTtftMs)}) ${partLabel(slowest.dominant)} ` +
        `dominates (${slowest.dominantIn} of ${slowest.count}): median ${ms(slowest.dominantMedianMs)} of their median ` +
        `TTFT ${ms(slowest.medianTtftMs)}, against ${ms(slowest.dominantMedianAllMs)} over all requests.`,
    );
  } else if (!longPrompts && serverMetricsRead) {
    // The server verdict that follows splits the server's share from the rest and says what bounded it: the
    // spans and gateway records would only say it again, finer.
    lines.push("Cause: the server verdict below, from the server's own metrics.");
  } else if (!longPrompts) {
    const missing = missingSegmentData(breakdown);
    const why = measured
      ? 'time no measured segment covers took most of the slowest TTFTs'
      : 'no segment data';
    lines.push(`Cause unknown: ${why}${missing === '' ? '' : `; missing ${missing}`}.`);
  }
  return { kind: 'ttft-spread', message: lines.join('\n') };
}

function clientBottleneck(records: readonly RequestRecord[], limitMs: number): Verdict | undefined {
  const lags = records
    .filter(hadAMomentToKeep)
    .map(scheduleLagMs)
    .filter((lag): lag is number => lag !== null);
  if (lags.length === 0) return undefined;
  const p99 = percentile(lags, 99);
  if (!(p99 > limitMs)) return undefined;
  const late = lags.filter((lag) => lag > limitMs).length;
  return {
    kind: 'client-bottleneck',
    message:
      `schedule lag p99 ${ms(p99)} exceeds ${limitMs} ms (median ${ms(median(lags))}; ${late} of ${lags.length} ` +
      `requests left more than ${limitMs} ms after they could have): the load generator sent late, so the ` +
      'offered load was lower than configured (free up CPU or run several load generators)',
  };
}

function concurrencyCap(records: readonly RequestRecord[], minShare: number): Verdict | undefined {
  const sent = records.filter((r) => r.sentAtMs !== null);
  const waited = sent.filter((r) => r.clientQueueMs > 0);
  if (sent.length === 0 || waited.length / sent.length < minShare) return undefined;
  const queues = waited.map((r) => r.clientQueueMs);
  return {
    kind: 'concurrency-cap',
    message:
      `--max-concurrency set the load: ${waited.length} of ${sent.length} requests (${percent(waited.length / sent.length)}) ` +
      `waited for a free slot (client queue median ${ms(median(queues))}, p99 ${ms(percentile(queues, 99))}), ` +
      'so the requests went out as fast as slots freed, not at the configured rate',
  };
}

export function verdicts(
  records: readonly RequestRecord[],
  extra: ExtraMetrics,
  thresholds: VerdictThresholds = DEFAULT_VERDICT_THRESHOLDS,
  /** The run's path, model and key source, so a failure's hint is the doctor's diagnosis for it. */
  target?: HintContext,
  /** Where the run's time went (loadgen/breakdown/), for the TTFT verdict; without it, "cause unknown". */
  breakdown?: BreakdownSummary,
  /** The run read the server's metrics, so the server verdict after these attributes the TTFT spread. */
  serverMetricsRead = false,
): Verdict[] {
  const found: Verdict[] = [];
  for (const [outcome, kind] of Object.entries(extra.failuresByKind)) {
    if (kind !== undefined) found.push({ kind: 'failures', message: describeFailure(outcome, kind, target) });
  }
  if (extra.total > 0 && extra.successRate < thresholds.minSuccessRate) {
    const completed = Math.round(extra.successRate * extra.total);
    found.push({
      kind: 'low-success-rate',
      message:
        `success rate ${percent(extra.successRate)} (${completed} of ${extra.total}) is below ` +
        `${percent(thresholds.minSuccessRate)}: fix the failures above before reading throughput or latency ` +
        '(they describe only the requests that got through)',
    });
  }
  for (const verdict of [
    ttftSpread(records, thresholds, breakdown, serverMetricsRead),
    clientBottleneck(records, thresholds.scheduleLagP99Ms),
    concurrencyCap(records, thresholds.capWaitShare),
  ]) {
    if (verdict !== undefined) found.push(verdict);
  }
  return found;
}

/** The verdicts section as printed after the summary; empty string when there is nothing to say. */
export function formatVerdicts(list: readonly Verdict[]): string {
  if (list.length === 0) return '';
  return `${[centre('Verdicts', 50, '-'), ...list.map((v) => v.message)].join('\n')}\n`;
}
