// One record per request, filled by whichever engine sent it (open-loop scheduler, closed-loop, replay) and
// read by the metrics and reports. All times are milliseconds; offsets are from the run's start (the instant
// the schedule's t = 0 was anchored), durations from `sentAtMs`, the moment just before the request was
// written (after any concurrency slot was acquired), as vLLM measures.

import type { ExchangeFigures } from '../src/measure/exchange-figures.js';
import { type ClientOutcome, PLANNED_CANCEL } from '../src/measure/outcome.js';
import type { ServerSegments } from '../src/tracing/receiver/server-segments.js';

/** Where `outputTokens` came from: the server's usage chunk, or our tokenizer over the generated text. */
export type OutputTokenSource = 'usage' | 'tokenizer';

/**
 * The shared fields (trace ids, status, outcome, times, tokens, chunks, gaps, error) are named in ExchangeFigures.
 * Every request starts its own trace: traceId and spanId are always written (records read back from files
 * written before tracing lack them), and spanId is the gateway record's parentSpanId.
 */
export interface RequestRecord extends ExchangeFigures {
  /** Position in the dataset / schedule. */
  index: number;
  /** When the schedule wanted it sent (ms after run start). */
  intendedOffsetMs: number;
  /** When it was actually written (ms after run start); null if it never was (aborted while queued). */
  sentAtMs: number | null;
  /**
   * Time the --max-concurrency cap held it back: from its intended time until a slot was free (0 when one was);
   * excluded from TTFT like vLLM's client_queue_time.
   */
  clientQueueMs: number;
  /** First response byte (headers) after sentAtMs. */
  ttfbMs: number | null;
  /** First chunk carrying choices after sentAtMs. */
  ttftMs: number | null;
  /** First answer chunk (not reasoning) after sentAtMs: time to first output token. */
  ttfoMs?: number | null;
  /** Gaps between successive token-bearing chunks (one per chunk, not per token). */
  itlMs: number[];
  /** Last token-bearing chunk after sentAtMs (usage chunk and [DONE] excluded). */
  lastTokenMs: number | null;
  outputTokens: number;
  outputTokensSource: OutputTokenSource;
  /** Prompt tokens by the run's tokenizer (bench's own count; a session's turn includes its history). */
  promptTokens: number;
  /**
   * The server's usage.prompt_tokens, when its answer said (chat template included: more than promptTokens on a
   * chat endpoint). vLLM's client reports this count when given, so vLLM's figures here take it over promptTokens
   * (inputTokens()). Absent when the server sent no usage, and from records written before it.
   */
  usagePromptTokens?: number;
  /** Token-bearing chunks received. */
  contentChunks: number;
  /**
   * How it ended; only `ok` counts as completed in vLLM's metrics. `cancelled`: cut by the run on purpose
   * (--request-cancellation-rate), counted apart and left out of every figure.
   */
  outcome: ClientOutcome;
  /** HTTP status, null when no response arrived. */
  status: number | null;
  /** One-line reason ("404 Not Found", "connect ECONNREFUSED 127.0.0.1:8000"), null when ok. */
  error: string | null;
  /** The start of the error body (HTTP error body or mid-stream error event), so users see why. */
  errorBodyExcerpt: string | null;
  /**
   * --request-cancellation-rate chose this request: the delay, ms from its write, after which it was to be
   * cancelled (whatever became of it: one that ended sooner completed as usual). Absent when not chosen.
   */
  cancelDelayMs?: number;
  /** When the run cancelled it as planned, ms after sentAtMs; present only with outcome `cancelled`. */
  cancelledAtMs?: number;
  /** Characters of generated text. */
  generatedTextLength: number;
  /** The generated text itself, kept only when detailed results are saved. */
  generatedText?: string;
  /** `--multi-turn` and agent replay: the session (the dataset's conversation or the trace's session id). */
  sessionId?: string;
  /** `--multi-turn` and agent replay: the turn's number in its session, from 1 (a trace's turn 0 is turn 1). */
  turn?: number;
  /** Agent replay (loadgen/agent/): the turn as the trace recorded it, and what the replay expected of it. */
  agent?: AgentTurnFields;
  /**
   * The tokenmeter gateway's version, from the header it adds to every answer (src/shared/package-version.ts);
   * absent when the answer came straight from the upstream, or when no answer arrived.
   */
  gatewayVersion?: string;
  /** As the gateway's record's: the server's usage held a count no answer can have, so none was read; why. */
  implausibleUsage?: string;
  /**
   * The server's own segments of this request, from the span it exported to the run's span receiver
   * (--span-receiver-port), the same field as the gateway's record (docs/tracing-receiver.md), without `startMs`.
   * Absent without the receiver or when no span joined within the wait.
   */
  server?: ServerSegments;
}

/** An agent replay's turn (docs/metrics.md, "Agent sessions"). */
export interface AgentTurnFields {
  /** The recorded prompt length (the trace's input_length), which the replayed prompt was sized to reach. */
  readonly recordedPromptTokens: number;
  /** The recorded output length (the trace's output_length): the request's max tokens. */
  readonly recordedOutputTokens: number;
  /** Prompt tokens a prefix cache should hold, by the trace's block ids: leading ids an earlier request sent. */
  readonly expectedCachedTokens: number;
  /** The wait before this turn: the recorded one times the replay's time scale, ms; 0 for turn 1. */
  readonly plannedWaitMs: number;
  /** From the previous answer's end to this send, as it happened, ms; null for turn 1. */
  readonly waitedMs: number | null;
  /** Tool calls the answer asked for (read from its body). */
  readonly toolCalls: number;
  /** The turn started its conversation afresh (its first turn, or after the capture's agent compacted it). */
  readonly fresh: boolean;
}

/**
 * How late the load generator itself was: actual send minus the moment it could be sent (the later of its
 * intended time and a free --max-concurrency slot), i.e. actual minus intended, less the cap's wait.
 */
export function scheduleLagMs(record: RequestRecord): number | null {
  if (record.sentAtMs === null) return null;
  return record.sentAtMs - record.intendedOffsetMs - record.clientQueueMs;
}

/** A request's input tokens as vLLM counts them: the server's usage when it reported one, else our own count. */
export function inputTokens(record: Pick<RequestRecord, 'promptTokens' | 'usagePromptTokens'>): number {
  return record.usagePromptTokens ?? record.promptTokens;
}

// The one rule for what a run cut itself: the requests it cancelled as planned (outcome `cancelled`) and the ones
// its own stop cut (Ctrl-C, an early stop, a budget's --on-limit cancel: `client_abort`, which the load generator
// records for nothing else) are not failures of the server, for the early stop's error rate and the smoke test
// alike. The planned ones are also left out of every figure (vLLM's completed and failed included) and counted
// apart (loadgen/cancellation/cancellation-feature.ts).

/** True for a request the run cancelled on purpose or by its own stop: no failure of the server. */
export function cancelledByRun(record: Pick<RequestRecord, 'outcome'>): boolean {
  return record.outcome === PLANNED_CANCEL || record.outcome === 'client_abort';
}

/** True for a request cancelled as --request-cancellation-rate planned. */
export function cancelledAsPlanned(record: Pick<RequestRecord, 'outcome'>): boolean {
  return record.outcome === PLANNED_CANCEL;
}

/** A saved run's records as its figures saw them: without the planned cancellations (compare, the HTML report). */
export function withoutPlannedCancels<R extends Pick<RequestRecord, 'outcome'>>(records: readonly R[]): R[] {
  return records.filter((r) => !cancelledAsPlanned(r));
}
