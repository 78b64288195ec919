// Ground truth: what the simulator did for each request and exactly when, so tests can compare what the gateway
// or the load generator measured against what really happened. Times are performance.now() of this process
// (in-process tests share that clock); receivedAtEpochMs anchors them for tests in other processes.
import { appendFile } from 'node:fs/promises';
import type { TraceSpan } from '../shared/trace-context.js';

export interface RequestTruth {
  readonly requestId: string;
  readonly endpoint: string;
  readonly model: string;
  readonly stream: boolean;
  readonly receivedAtMs: number;
  readonly receivedAtEpochMs: number;
  status: number;
  fault: string | undefined;
  promptTokens: number;
  /** Generated tokens written to the client so far, reasoning included. */
  completionTokens: number;
  /** Of those, reasoning tokens (a reasoning model's part before the answer). */
  reasoningTokens: number;
  /** Prompt tokens found in the prefix cache at the first admission (what usage reports as cached). */
  cachedTokens: number;
  /** When the first answer token (not reasoning) was written; undefined until then. */
  firstAnswerTokenAtMs: number | undefined;
  /** When the request first got a seat (left the queue). */
  startedAtMs: number | undefined;
  queueMs: number | undefined;
  /** Every admission (the first, then one per recomputation after a preemption), with its planned prefill. */
  readonly prefills: PrefillTruth[];
  /** When the request was preempted (its KV blocks taken back); each is followed by a prefill that recomputes. */
  readonly preemptedAtMs: number[];
  headersAtMs: number | undefined;
  /** Planned and actual write time of every content chunk, and how many tokens each carried. */
  readonly plannedChunkAtMs: number[];
  readonly contentChunkEmittedAtMs: number[];
  readonly tokensPerChunk: number[];
  /**
   * Speculative decoding: the drafts each verification step accepted (of the config's speculativeTokens), one
   * entry per step that ran, so per chunk after the first. The rejection sampler's count: the last step may accept
   * more than the answer had left to write (its chunk then carries only what was left).
   */
  readonly acceptedDrafts: number[];
  /** `stop`, `length` or `tool_calls` once finished; undefined while running or when cut. */
  finishReason: string | undefined;
  /** The tool the answer called (finish `tool_calls`), else undefined. */
  toolCall: string | undefined;
  cancelled: boolean;
  cancelledAtMs: number | undefined;
  endedAtMs: number | undefined;
  /** The request's `llm_request` span (with --otlp-traces-endpoint only): its trace, its id, its parent's. */
  trace: TraceSpan | undefined;
}

export function newTruth(
  requestId: string,
  endpoint: string,
  model: string,
  stream: boolean,
  receivedAtMs: number,
): RequestTruth {
  return {
    requestId,
    endpoint,
    model,
    stream,
    receivedAtMs,
    receivedAtEpochMs: performance.timeOrigin + receivedAtMs,
    status: 200,
    fault: undefined,
    promptTokens: 0,
    completionTokens: 0,
    reasoningTokens: 0,
    cachedTokens: 0,
    firstAnswerTokenAtMs: undefined,
    startedAtMs: undefined,
    queueMs: undefined,
    prefills: [],
    preemptedAtMs: [],
    headersAtMs: undefined,
    plannedChunkAtMs: [],
    contentChunkEmittedAtMs: [],
    tokensPerChunk: [],
    acceptedDrafts: [],
    finishReason: undefined,
    toolCall: undefined,
    cancelled: false,
    cancelledAtMs: undefined,
    endedAtMs: undefined,
    trace: undefined,
  };
}

export interface PrefillTruth {
  readonly atMs: number;
  /** Context prefilled: the prompt, plus the tokens generated before a preemption. */
  readonly contextTokens: number;
  /** Of those, found in the prefix cache (not computed). */
  readonly cachedTokens: number;
  /** Planned prefill time: the fixed part plus the uncached tokens' cost, under the batch's slowdown. */
  readonly plannedMs: number;
}

/** The most recent requests' truth, bounded, plus an optional JSONL file with every finished request. */
export class TruthStore {
  private readonly byId = new Map<string, RequestTruth>();
  private writeChain: Promise<void> = Promise.resolve();
  writeFailures = 0;

  constructor(
    private readonly capacity: number,
    private readonly logPath: string | undefined,
  ) {}

  add(truth: RequestTruth): void {
    this.byId.delete(truth.requestId);
    this.byId.set(truth.requestId, truth);
    if (this.byId.size > this.capacity) {
      const oldest = this.byId.keys().next().value;
      if (oldest !== undefined) this.byId.delete(oldest);
    }
  }

  get(requestId: string): RequestTruth | undefined {
    return this.byId.get(requestId);
  }

  /** Called once per request when it ends (finished, failed, cut or cancelled). */
  finish(truth: RequestTruth): void {
    if (!this.logPath) return;
    const line = `${JSON.stringify(truth)}\n`;
    const path = this.logPath;
    // Appends are chained so lines never interleave, and run off the emission path.
    this.writeChain = this.writeChain
      .then(() => appendFile(path, line))
      .catch(() => {
        this.writeFailures++;
      });
  }

  flush(): Promise<void> {
    return this.writeChain;
  }
}
