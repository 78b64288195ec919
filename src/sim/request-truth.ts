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
  /** Content tokens written to the client so far. */
  completionTokens: number;
  /** When the request got a seat (left the queue). */
  startedAtMs: number | undefined;
  queueMs: number | undefined;
  headersAtMs: number | undefined;
  /** Planned and actual write time of every content chunk, and how many tokens each carried. */
  readonly plannedChunkAtMs: number[];
  readonly contentChunkEmittedAtMs: number[];
  readonly tokensPerChunk: number[];
  finishReason: string | undefined;
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
    startedAtMs: undefined,
    queueMs: undefined,
    headersAtMs: undefined,
    plannedChunkAtMs: [],
    contentChunkEmittedAtMs: [],
    tokensPerChunk: [],
    finishReason: undefined,
    cancelled: false,
    cancelledAtMs: undefined,
    endedAtMs: undefined,
    trace: undefined,
  };
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
