// Plain-language conclusions printed after the numbers, so a user does not have to know what to look for:
// why requests failed (with the first body of each kind: vLLM shows only "Not Found"), whether the success
// rate is too low to read the rest, whether TTFT spread says the server is over-saturated, and whether the
// load generator itself fell behind its schedule (then the numbers describe the client, not the server).

import type { ExtraMetrics, FailureKind } from '../metrics/extra-metrics.js';
import { median, percentile } from '../metrics/numpy-stats.js';
import { type RequestRecord, scheduleLagMs } from '../record.js';
import { centre } from './python-format.js';

export interface VerdictThresholds {
  /** Below this share of completed requests, say so (the article's rule of thumb: 90%). */
  minSuccessRate: number;
  /** TTFT p99 above this multiple of the median means requests queue at the server. */
  ttftP99OverMedian: number;
  /** Schedule lag p99 above this (ms) means the client could not keep up with its own schedule. */
  scheduleLagP99Ms: number;
}

export const DEFAULT_VERDICT_THRESHOLDS: Readonly<VerdictThresholds> = Object.freeze({
  minSuccessRate: 0.9,
  ttftP99OverMedian: 3,
  scheduleLagP99Ms: 10,
});

export type VerdictKind = 'failures' | 'low-success-rate' | 'ttft-spread' | 'client-bottleneck';

export interface Verdict {
  kind: VerdictKind;
  /** One or more lines, without trailing newline. */
  message: string;
}

const BODY_EXCERPT_CHARS = 300;

/** What usually causes a status with vLLM-style commands (see docs on --base-url and --backend). */
const STATUS_HINTS: Readonly<Record<string, string>> = {
  '401':
    'the API key is missing or wrong (set --api-key or --api-key-env; anthropic-messages sends it as x-api-key, the other backends as Authorization: Bearer)',
  '404': "wrong URL: check --base-url and --endpoint (a base URL ending in /v1 plus /v1/... gives '/v1/v1')",
  '422':
    'the body does not fit the endpoint: /v1/chat/completions needs --backend openai-chat, /v1/completions openai, /v1/messages anthropic-messages, /v1/responses openai-responses',
  '429': 'rate limited by the server or provider: lower --request-rate or --max-concurrency',
};

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > BODY_EXCERPT_CHARS ? `${flat.slice(0, BODY_EXCERPT_CHARS)}...` : flat;
}

function describeFailure(outcome: string, kind: FailureKind): string {
  const statuses = Object.entries(kind.statuses)
    .map(([status, count]) => `HTTP ${status} x${count}`)
    .join(', ');
  const lines = [
    `${outcome}: ${kind.count} request${kind.count === 1 ? '' : 's'}${statuses === '' ? '' : ` (${statuses})`}`,
  ];
  lines.push(`  first, request #${kind.firstIndex}: ${kind.firstError ?? 'no error message'}`);
  if (kind.firstBodyExcerpt !== null && kind.firstBodyExcerpt !== '') {
    lines.push(`  body: ${oneLine(kind.firstBodyExcerpt)}`);
  }
  for (const status of Object.keys(kind.statuses)) {
    const hint = STATUS_HINTS[status];
    if (hint !== undefined) lines.push(`  hint (${status}): ${hint}`);
  }
  return lines.join('\n');
}

function percent(share: number): string {
  return `${(share * 100).toFixed(1)}%`;
}

export function verdicts(
  records: readonly RequestRecord[],
  extra: ExtraMetrics,
  thresholds: VerdictThresholds = DEFAULT_VERDICT_THRESHOLDS,
): Verdict[] {
  const found: Verdict[] = [];
  for (const [outcome, kind] of Object.entries(extra.failuresByKind)) {
    if (kind !== undefined) found.push({ kind: 'failures', message: describeFailure(outcome, kind) });
  }
  if (extra.total > 0 && extra.successRate < thresholds.minSuccessRate) {
    found.push({
      kind: 'low-success-rate',
      message:
        `success rate ${percent(extra.successRate)} is below ${percent(thresholds.minSuccessRate)}: fix the ` +
        'failures above before reading throughput or latency (they describe only the requests that got through)',
    });
  }

  const ttfts = records.filter((r) => r.outcome === 'ok' && r.ttftMs !== null).map((r) => r.ttftMs as number);
  if (ttfts.length > 0) {
    const middle = median(ttfts);
    const p99 = percentile(ttfts, 99);
    if (middle > 0 && p99 > thresholds.ttftP99OverMedian * middle) {
      found.push({
        kind: 'ttft-spread',
        message:
          `TTFT p99 ${p99.toFixed(2)} ms is ${(p99 / middle).toFixed(1)}x the median ${middle.toFixed(2)} ms: ` +
          'requests are queueing at the server; concurrency (or request rate) is likely too high for it',
      });
    }
  }

  const lags = records.map(scheduleLagMs).filter((lag): lag is number => lag !== null);
  if (lags.length > 0) {
    const p99 = percentile(lags, 99);
    if (p99 > thresholds.scheduleLagP99Ms) {
      found.push({
        kind: 'client-bottleneck',
        message:
          `schedule lag p99 ${p99.toFixed(2)} ms exceeds ${thresholds.scheduleLagP99Ms} ms: the load generator sent ` +
          'late, so it was the bottleneck and the offered load was lower than configured (free up CPU or run ' +
          'several load generators)',
      });
    }
  }
  return found;
}

/** The verdicts section as printed after the summary; empty string when there is nothing to say. */
export function formatVerdicts(list: readonly Verdict[]): string {
  if (list.length === 0) return '';
  return `${[centre('Verdicts', 50, '-'), ...list.map((v) => v.message)].join('\n')}\n`;
}
