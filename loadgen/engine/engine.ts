// The one interface every engine implements: given prepared requests and how to pace them, send them, time every
// chunk, and hand back one RequestRecord per request as each finishes. Engines know nothing about datasets,
// metrics or display; the bench and sweep commands compose those around an engine.

import type { ProtocolName } from '../../src/protocols/index.js';
import type { RequestRecord } from '../record.js';
import type { Tokenizer } from '../tokenizer/tokenizer.js';

/** One request ready to go on the wire. */
export interface PreparedRequest {
  /** Position in the dataset; the record carries it. */
  readonly index: number;
  /**
   * Sent as `x-request-id`, so the server's (or gateway's) logs and records can be matched to ours. Absent: no
   * such header, as vLLM sends its ready check and warm-ups (loadgen/bench/warm-up.ts).
   */
  readonly requestId?: string;
  /** The JSON body, serialized once before the run so the send path does no work. */
  readonly body: Buffer;
  /** Prompt length by the run's tokenizer (vLLM reports the dataset's count, not the server's). */
  readonly promptTokens: number;
  /** --request-cancellation-rate chose it: cancelled this many ms after it was written (loadgen/cancellation/). */
  readonly cancelAfterMs?: number;
}

export interface EngineTarget {
  /** `http://host:port` */
  readonly origin: string;
  /** Path (and query) of the endpoint, e.g. `/v1/chat/completions`. */
  readonly path: string;
  /** Headers sent with every request (the key in the backend's form, --header, content-type). */
  readonly headers: Readonly<Record<string, string>>;
  /** The body format and its stream (src/protocols). */
  readonly protocol: ProtocolName;
  /** --insecure: an https origin's certificate is not verified (the run's header says so). */
  readonly insecure?: boolean;
}

export interface EngineRunOptions {
  readonly target: EngineTarget;
  readonly requests: readonly PreparedRequest[];
  /** Counts output tokens when the server sends no usage (vLLM re-tokenizes the generated text). */
  readonly tokenizer: Tokenizer;
  /** Keep each request's generated text in its record (for --save-detailed and --smoke). */
  readonly keepText: boolean;
  /** Longest silence (no header, no body byte) tolerated before a request is failed as a timeout. */
  readonly idleTimeoutMs: number;
  /** How many bytes of a failed response's body to keep in the record. */
  readonly errorBodyBytes: number;
  /** Called once per request, as it finishes, in completion order, with the run's t = 0 (performance.now()). */
  readonly onRecord: (record: RequestRecord, runStartMs: number) => void;
  /** Called when a request is written, for progress display. */
  readonly onSent?: (index: number) => void;
  /** Aborting stops new sends and cancels in-flight requests (recorded as `client_abort`). */
  readonly signal: AbortSignal;
}

export interface EngineResult {
  /** performance.now() of the run's t = 0 (record offsets are relative to it). */
  readonly startedAtMs: number;
  /** From t = 0 until the last request finished (vLLM's benchmark duration). */
  readonly durationMs: number;
  /** Records produced: the request count, less those never sent (aborted before due, or past --duration). */
  readonly recorded: number;
  readonly aborted: boolean;
}

export interface Engine {
  readonly name: string;
  run(options: EngineRunOptions): Promise<EngineResult>;
}
