// The JSON line written for every request. The fields it shares with the load generator's record are named
// once, in src/measure/exchange-figures.ts; the outcomes are src/measure/outcome.ts's.
import type { ExchangeFigures } from '../../measure/exchange-figures.js';
import { GAP_BUCKET_BOUNDS_S } from '../../measure/gap-buckets.js';
import type { Outcome } from '../../measure/outcome.js';
import type { GapSummary } from '../../measure/stream-timing.js';
import type { ProtocolName } from '../../protocols/index.js';
import type { ServerSegments } from '../../tracing/receiver/server-segments.js';
import type { PromptPrefix } from '../sessions/prompt-prefixes.js';
import type { SessionSource } from '../sessions/sessions.js';

/**
 * Which side of a mirrored pair a record is (src/gateway/exchange/mirrors.ts): `primary` answered the client (every request
 * that is not a mirror's copy is one), `mirror` is the copy sent to a route's mirror upstream, measured and
 * discarded. The metrics' `role` label takes the same values.
 */
/** Receives each finished request's record: frozen, complete, and all a sink gets (exchange.ts finishes it). */
export type RecordSink = (record: RequestRecord) => void;

export const REQUEST_ROLES = ['primary', 'mirror'] as const;
export type RequestRole = (typeof REQUEST_ROLES)[number];

export interface RequestRecord extends ExchangeFigures {
  readonly requestId: string;
  readonly role: RequestRole;
  /** Shared by a primary and its mirror (the primary's requestId); null for a request that was not mirrored. */
  readonly pairId: string | null;
  readonly traceId: string;
  readonly spanId: string;
  /** The client's span id from its traceparent; null when the gateway started the trace. */
  readonly parentSpanId: string | null;
  /** The W3C trace flags of the gateway's span (`01`: sampled), as its traceparent carries them. */
  readonly traceFlags: string;
  /** Wall-clock ISO time the request arrived. */
  readonly startedAt: string;
  /** `performance.now()` at arrival, so in-process tools can align records with their own clocks. */
  readonly receivedAtMonotonicMs: number;
  readonly method: string;
  readonly upstream: string | null;
  readonly modelAsked: string | null;
  readonly modelSent: string | null;
  readonly pathAsked: string;
  readonly pathSent: string | null;
  readonly pathFixes: readonly string[];
  /**
   * The protocol whose answer was timed (the endpoint's own, as the route found it: `openai-chat`, ...); null for
   * an untimed endpoint (models, `messages/count_tokens`, ...) and a request that reached no route.
   */
  readonly protocol: ProtocolName | null;
  readonly stream: boolean;
  readonly status: number;
  readonly outcome: Outcome;
  /** Milliseconds since arrival; null when the step never happened. */
  readonly upstreamRequestMs: number | null;
  readonly upstreamSocketWriteMs: number | null;
  readonly ttfbMs: number | null;
  readonly ttftMs: number | null;
  readonly lastTokenMs: number | null;
  readonly e2eMs: number;
  readonly tpotMs: number | null;
  readonly gatewayOverheadMs: number;
  readonly promptTokens: number | null;
  /** As ExchangeFigures defines it; always written by the gateway. */
  readonly cachedPromptTokens: number | null;
  readonly outputTokens: number | null;
  readonly outputTokensSource: 'usage' | 'estimate' | null;
  /**
   * promptTokens (cachedPromptTokens of them at the cached-input price, when set) and outputTokens times the price
   * of modelSent on this upstream (upstreams[].prices), per million tokens, unrounded. Null without a price or
   * without the token count; an estimated outputTokens gives an estimated costOutput.
   */
  readonly costInput: number | null;
  readonly costOutput: number | null;
  /** ISO 4217 code of the costs; null without a price. */
  readonly currency: string | null;
  readonly contentChunks: number;
  /** Output tokens / content chunks: above 1 when the upstream batches tokens into chunks. */
  readonly meanTokensPerChunk: number | null;
  /** Largest estimated token count of one chunk; null without content chunks. */
  readonly maxTokensPerChunk: number | null;
  readonly finishReason: string | null;
  readonly sseOverflow: boolean;
  readonly usageInjected: boolean;
  /**
   * The content-chunk gaps counted in tokenmeter_inter_token_gap_seconds's buckets
   * (src/gateway/records/record.ts): non-zero counts keyed by `le`, and their sum; null without a metered
   * stream of two or more content chunks.
   */
  readonly gapCounts: GapCounts | null;
  // The session fields (docs/metrics.md, "Sessions"): always written since they were added, absent from the
  // records of earlier versions. Null when the request has no session (no conversation and no id: an untimed
  // endpoint, completions) or, for the counts, when its answer or body was not read.
  /** The session this request is a turn of, as the client named it or the gateway found it (sessions.ts). */
  readonly sessionId?: string | null;
  /** Where sessionId came from. */
  readonly sessionSource?: SessionSource | null;
  /** Its place in the session, from 0, in order of arrival. */
  readonly turn?: number | null;
  /**
   * Milliseconds from the end of the session's previous answer to this request's arrival (the agent's tool and
   * think time); null for turn 0 and for a request that arrived while another of its session was unanswered.
   */
  readonly waitBeforeMs?: number | null;
  /** Tool calls the answer asked the client to run. */
  readonly toolCalls?: number | null;
  /** Tool results the request sent back after the model's last message in its conversation (conversation.ts). */
  readonly toolResults?: number | null;
  /**
   * The prompt's block structure without its text, for `trace export --sessions` (prompt-prefixes.ts): at a few
   * message boundaries, [messages before it, bytes of the prompt up to it, keyed hash of those bytes]. Null
   * without a conversation (completions, an unreadable body); absent from records of earlier versions.
   */
  readonly promptPrefixes?: readonly PromptPrefix[] | null;
  readonly itlMs?: readonly number[];
  /** The client's request body as received (records.bodies only), cut at 256 KiB. Never any header. */
  readonly requestBody?: string;
  /** True when requestBody was cut at the cap (records.bodies only). */
  readonly requestBodyTruncated?: boolean;
  readonly error: string | null;
  /**
   * The upstream's usage held a count no answer can have (src/measure/reported-usage.ts): why. None of its counts
   * was read, so the token counts, their counters and the cost are those of an answer without usage. Absent
   * otherwise.
   */
  readonly implausibleUsage?: string;
  /**
   * The server's own segments of this request, from the span it exported to the built-in span receiver
   * (spanReceiver; docs/tracing-receiver.md). Absent when the receiver is off or no span joined within its wait.
   */
  readonly server?: ServerSegments;
  /** For upstream HTTP errors: what the status most often means and what to change. */
  readonly hint: string | null;
}

// A request's inter-token gaps as counts in the gateway's gap histogram buckets
// (tokenmeter_inter_token_gap_seconds): what the metrics sink needs of the gaps, carried on the record so that
// sinks get the record and nothing else. The meter counts each gap into its bucket as the chunk arrives
// (src/measure/gap-buckets.ts), so this is only a change of form, done once per request when it finishes: no list
// of gaps is kept for it.
/** Non-zero bucket counts keyed by the bucket's `le` label (seconds; `+Inf` last), and the gaps' sum. */
export interface GapCounts {
  readonly counts: Readonly<Record<string, number>>;
  /** Sum of the gaps counted, milliseconds. */
  readonly sumMs: number;
}

/** The `le` label of each bucket, in order, then `+Inf`: one per entry of the meter's bucket counts. */
export const GAP_BUCKET_LABELS: readonly string[] = [...GAP_BUCKET_BOUNDS_S.map(String), '+Inf'];

/** The meter's gaps as bucket counts; null when there are none to count (no meter, fewer than two chunks). */
export function gapCountsOf(gaps: GapSummary | undefined): GapCounts | null {
  if (gaps === undefined || gaps.count === 0) return null;
  const counts: Record<string, number> = {};
  const buckets = gaps.bucketCounts;
  // An indexed loop: entries() would build a pair per bucket, for every request that finishes.
  for (let bucket = 0; bucket < buckets.length; bucket++) {
    const count = buckets[bucket] as number;
    if (count > 0) counts[GAP_BUCKET_LABELS[bucket] as string] = count;
  }
  return { counts, sumMs: gaps.sumMs };
}
