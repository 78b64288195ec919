// One request's life in the simulator: wait for a seat and KV blocks, prefill (less what the prefix cache holds),
// then write chunks at the times the timing model plans, and stop the moment the client goes away. Each chunk's
// time is planned from the previous chunk's planned time (not from when it was actually written), so timer
// lateness never accumulates along a stream. A chunk that needs a KV block the pool does not have may preempt a
// sequence (batch-scheduler.ts), this one included: it then waits and recomputes before its next chunk.
import type { ServerResponse } from 'node:http';
import type { SeededRandom } from '../shared/random.js';
import type { PlannedAnswer } from './answer-text.js';
import type { BatchScheduler, Seat, SeatOwner } from './batch-scheduler.js';
import type { ReasoningSettings, TimingModel } from './config.js';
import type { EmissionClock, ScheduledEmission } from './emission-clock.js';
import { type AnswerWire, answerId, type GenerationRequest, type SimProtocol } from './protocols/protocol.js';
import type { RequestTruth, TruthStore } from './request-truth.js';
import { SimMetrics, type VllmLabels } from './sim-metrics.js';
import type { SimSpans } from './sim-spans.js';

export interface GenerationEnvironment {
  readonly timing: TimingModel;
  readonly reasoning: ReasoningSettings;
  /** --enable-prefix-caching: generated blocks join the cache, and usage reports cached prompt tokens. */
  readonly prefixCaching: boolean;
  readonly clock: EmissionClock;
  readonly scheduler: BatchScheduler;
  readonly metrics: SimMetrics;
  readonly truths: TruthStore;
  /** Exports each generation's `llm_request` span; null without --otlp-traces-endpoint. */
  readonly spans: SimSpans | null;
}

export interface StreamFaults {
  readonly cutAfterTokens: number;
  readonly stallAfterTokens: number;
  readonly stallMs: number;
}

export class Generation implements SeatOwner {
  private readonly wire: AnswerWire;
  private seat: Seat | undefined;
  private pending: ScheduledEmission | undefined;
  private sent = 0;
  /** Tokens of the chunk planned next (drawn once per chunk: speculative steps vary). */
  private nextChunk = 0;
  /** The drafts the planned speculative step accepted; undefined when the next chunk is a prefill's. */
  private nextAccepted: number | undefined;
  private lastPlannedMs = 0;
  private stalled = false;
  private done = false;
  private text = '';
  private reasoningText = '';
  private readonly labels: VllmLabels;

  constructor(
    private readonly env: GenerationEnvironment,
    protocol: SimProtocol,
    private readonly request: GenerationRequest,
    model: string,
    private readonly answer: PlannedAnswer,
    private readonly jitter: SeededRandom,
    /** Draws each speculative step's accepted drafts; never drawn without speculative decoding. */
    private readonly drafts: SeededRandom,
    private readonly faults: StreamFaults,
    private readonly truth: RequestTruth,
    private readonly res: ServerResponse,
  ) {
    this.wire = protocol.wire({
      id: answerId(protocol, truth.requestId),
      created: Math.floor(Date.now() / 1000),
      model,
      request,
      roleChunk: env.timing.roleChunk,
      reasoning: answer.reasoningTokens > 0,
      chatReasoningField: env.reasoning.chatField,
      toolCall: answer.toolCall,
    });
    this.labels = SimMetrics.engineLabels(model);
    res.on('close', () => {
      if (!this.done) this.cancel(performance.now());
    });
  }

  start(): void {
    if (this.request.stream) {
      this.res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        'x-request-id': this.truth.requestId,
      });
      this.res.flushHeaders();
      this.truth.headersAtMs = performance.now();
      const opening = this.wire.opening();
      if (opening !== '') this.res.write(opening);
    }
    this.seat = this.env.scheduler.admit(this);
  }

  get blockHashes(): readonly string[] {
    return this.request.blocks.blockHashes;
  }

  /** The context a (re)admission must hold and, after a preemption, recompute: prompt plus tokens sent. */
  contextTokens(): number {
    return this.request.promptTokens + this.sent;
  }

  /** Admitted (again, after a preemption): prefill the context, less what the prefix cache already holds. */
  prefill(cachedTokens: number): void {
    const now = performance.now();
    const truth = this.truth;
    if (truth.startedAtMs === undefined) {
      truth.startedAtMs = now;
      truth.queueMs = now - truth.receivedAtMs;
      truth.cachedTokens = cachedTokens;
    }
    const contextTokens = this.contextTokens();
    const { ttftMs, prefillMsPerToken } = this.env.timing;
    const plannedMs = this.stepMs(ttftMs + prefillMsPerToken * (contextTokens - cachedTokens));
    truth.prefills.push({ atMs: now, contextTokens, cachedTokens, plannedMs });
    this.lastPlannedMs = now + plannedMs;
    // With several tokens per chunk the first chunk also waits for its other tokens, as a batching gateway does.
    // With speculative decoding the prefill yields one token, its own chunk; drafting starts with the next step.
    this.nextChunk = this.withToolName(
      this.env.timing.speculativeTokens > 0 ? Math.min(1, this.remaining()) : this.groupedChunk(),
    );
    // A step drawn before a preemption never ran: its drafts are not counted.
    this.nextAccepted = undefined;
    this.scheduleChunk(this.env.timing.speculativeTokens > 0 ? 0 : this.nextChunk - 1);
  }

  /** Preempted: the planned chunk is dropped; the tokens already sent stay sent and are recomputed on readmission. */
  preempt(): void {
    if (this.pending) this.pending.cancelled = true;
    this.pending = undefined;
    this.truth.preemptedAtMs.push(performance.now());
  }

  /** A step's duration under the current batch, with jitter. */
  private stepMs(baseMs: number): number {
    const { jitter } = this.env.timing;
    const noise = jitter === 0 ? 1 : 1 + jitter * (2 * this.jitter.next() - 1);
    return baseMs * this.env.scheduler.slowdown() * noise;
  }

  private remaining(): number {
    return this.answer.tokens.length - this.sent;
  }

  /** The next chunk without speculative decoding: tokensPerChunk steps of one token each. */
  private groupedChunk(): number {
    return Math.min(this.env.timing.tokensPerChunk, this.remaining());
  }

  /**
   * A chunk never ends on a tool call's name: the name goes out with the arguments' first piece, in the one event
   * that opens the call (a protocol whose call opens in a lifecycle event would otherwise show its first token
   * one step late). Such a chunk carries one token more.
   */
  private withToolName(count: number): number {
    const { toolCall, reasoningTokens } = this.answer;
    const endsOnName = toolCall !== undefined && this.sent + count === reasoningTokens + 1;
    return endsOnName && this.remaining() > count ? count + 1 : count;
  }

  /**
   * One speculative step's chunk: the token the target model computes plus the drafts accepted before the first
   * rejection (each accepted with specAcceptanceRate), as vLLM's rejection sampler keeps a prefix of the drafts.
   */
  private speculativeChunk(): number {
    const { speculativeTokens, specAcceptanceRate } = this.env.timing;
    let accepted = 0;
    while (accepted < speculativeTokens && this.drafts.next() < specAcceptanceRate) accepted++;
    this.nextAccepted = accepted;
    return Math.min(1 + accepted, this.remaining());
  }

  private scheduleChunk(extraSteps: number): void {
    let due = this.lastPlannedMs;
    for (let i = 0; i < extraSteps; i++) due += this.stepMs(this.env.timing.itlMs);
    const { stallAfterTokens, stallMs } = this.faults;
    if (!this.stalled && stallAfterTokens > 0 && this.sent >= stallAfterTokens) {
      this.stalled = true;
      due += stallMs;
    }
    this.lastPlannedMs = due;
    this.pending = this.env.clock.schedule(due, (now) => this.emit(now, due));
  }

  private emit(now: number, plannedMs: number): void {
    this.pending = undefined;
    const count = this.nextChunk;
    if (count === 0) {
      // An answer cut to nothing by a stop string: straight to the finish.
      if (this.request.stream) this.res.write(this.wire.beforeFirstContent());
      this.finish(now);
      return;
    }
    // The step that produces these tokens needs KV room for them; without it a sequence is preempted, maybe this one.
    if (!this.env.scheduler.grow(this.seat as Seat, this.contextTokens() + count)) return;
    const first = this.sent === 0;
    if (this.nextAccepted !== undefined) this.countDraft(this.nextAccepted);
    const events = this.writeTokens(now, count);
    if (this.request.stream) this.res.write(first ? this.wire.beforeFirstContent() + events : events);
    this.recordChunk(now, plannedMs, count, first);
    const { cutAfterTokens } = this.faults;
    if (this.request.stream && cutAfterTokens > 0 && this.sent >= cutAfterTokens) {
      this.cut(now);
      return;
    }
    if (this.sent >= this.answer.tokens.length) {
      this.finish(now);
      return;
    }
    if (this.env.timing.speculativeTokens > 0) {
      this.nextChunk = this.withToolName(this.speculativeChunk());
      this.scheduleChunk(1);
    } else {
      this.nextChunk = this.withToolName(this.groupedChunk());
      this.scheduleChunk(this.nextChunk);
    }
  }

  /** A speculative step ran: vLLM counts its drafts whether or not the answer needed every accepted token. */
  private countDraft(accepted: number): void {
    this.truth.acceptedDrafts.push(accepted);
    this.env.metrics.observeDraft(this.env.timing.speculativeTokens, accepted);
  }

  /**
   * The next `count` planned tokens as wire events: reasoning, then the answer's text or tool call (a chunk may
   * straddle the two). A tool call's name token is written by the wire with its first arguments piece.
   */
  private writeTokens(now: number, count: number): string {
    const { tokens, reasoningTokens, toolCall } = this.answer;
    const from = this.sent;
    const to = from + count;
    this.sent = to;
    let events = '';
    if (from < reasoningTokens) {
      const part = tokens.slice(from, Math.min(to, reasoningTokens)).join('');
      this.reasoningText += part;
      events += this.wire.reasoning(part, Math.min(to, reasoningTokens));
    }
    if (to > reasoningTokens && toolCall !== undefined) {
      events += this.wire.toolArguments(tokens.slice(Math.max(from, reasoningTokens + 1), to).join(''), to);
      this.truth.firstAnswerTokenAtMs ??= now;
    } else if (to > reasoningTokens) {
      const part = tokens.slice(Math.max(from, reasoningTokens), to).join('');
      this.text += part;
      events += this.wire.content(part, to);
      this.truth.firstAnswerTokenAtMs ??= now;
    }
    this.truth.reasoningTokens = Math.min(to, reasoningTokens);
    if (this.env.prefixCaching) this.extendBlocks(tokens, from, to);
    return events;
  }

  /**
   * With prefix caching, the generated tokens continue the block hash chain, one hash per 16 tokens, reasoning
   * included as the model's context holds it. A next turn repeats the answer but not the reasoning (chat templates
   * drop it), so after a reasoning answer its hits end with the previous prompt.
   */
  private extendBlocks(tokens: readonly string[], from: number, to: number): void {
    const blocks = this.request.blocks;
    const before = blocks.blockHashes.length;
    for (let i = from; i < to; i++) blocks.generated(tokens[i] as string);
    if (blocks.blockHashes.length > before) this.env.scheduler.filled(this.seat as Seat);
  }

  private recordChunk(now: number, plannedMs: number, count: number, first: boolean): void {
    const truth = this.truth;
    const modelLabel = this.labels;
    if (first) {
      this.env.metrics.ttft.observe(modelLabel, (now - truth.receivedAtMs) / 1000);
    } else {
      const previous = truth.contentChunkEmittedAtMs[truth.contentChunkEmittedAtMs.length - 1] ?? now;
      const perToken = (now - previous) / count / 1000;
      for (let i = 0; i < count; i++) this.env.metrics.itl.observe(modelLabel, perToken);
    }
    this.env.metrics.generationTokens.inc(modelLabel, count);
    truth.plannedChunkAtMs.push(plannedMs);
    truth.contentChunkEmittedAtMs.push(now);
    truth.tokensPerChunk.push(count);
    truth.completionTokens = this.sent;
  }

  private finish(now: number): void {
    const { answer, request, truth } = this;
    const usage = {
      promptTokens: request.promptTokens,
      completionTokens: this.sent,
      reasoningTokens: truth.reasoningTokens,
      cachedTokens: truth.cachedTokens,
      reportsCache: this.env.prefixCaching,
    };
    if (request.stream) {
      this.res.end(this.wire.closing(answer.finishReason, usage));
    } else {
      const body = this.wire.body(
        { reasoning: this.reasoningText, text: this.text },
        answer.finishReason,
        usage,
      );
      this.res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': truth.requestId });
      this.res.end(JSON.stringify(body));
    }
    truth.finishReason = answer.finishReason;
    truth.toolCall = answer.toolCall?.name;
    // vLLM's finished_reason has no tool calls: a tool call ends on the end-of-sequence token, a `stop`.
    this.end(now, answer.finishReason === 'tool_calls' ? 'stop' : answer.finishReason);
  }

  /** The "cut the stream" fault: the connection drops with no finish reason and no [DONE]. */
  private cut(now: number): void {
    this.truth.fault = `cut after ${this.sent} tokens`;
    this.truth.finishReason = undefined;
    this.end(now, 'abort');
    // end() on the socket sends what is buffered, then FIN, without the chunked terminator: the client gets the
    // n tokens and then a premature close, as with an upstream that dies mid-answer. destroy() could drop them.
    this.res.socket?.end();
  }

  private cancel(now: number): void {
    if (this.pending) this.pending.cancelled = true;
    this.truth.cancelled = true;
    this.truth.cancelledAtMs = now;
    this.env.metrics.cancelled.inc();
    this.end(now, 'abort');
  }

  private end(now: number, reason: string): void {
    if (this.done) return;
    this.done = true;
    if (this.seat) this.env.scheduler.release(this.seat);
    this.truth.endedAtMs = now;
    const { metrics } = this.env;
    metrics.finished.inc({ ...this.labels, finished_reason: reason });
    if (reason !== 'abort') {
      metrics.e2e.observe(this.labels, (now - this.truth.receivedAtMs) / 1000);
      metrics.queueTime.observe(this.labels, (this.truth.queueMs ?? 0) / 1000);
    }
    this.env.truths.finish(this.truth);
    if (this.env.spans !== null && this.truth.trace !== undefined)
      this.env.spans.finish(this.truth, this.request, this.truth.trace);
  }
}
