// The live figures of the last few seconds of a run, for the progress display: finished and failed requests,
// output tokens, and TTFT p50/p99. Memory is bounded whatever the run's length or rate: a ring of one-second
// slots, each with counters and a log-scale TTFT histogram (5% wide buckets), so a record costs a few additions
// and a snapshot merges the slots' histograms instead of sorting every TTFT of the run on each redraw.

const SLOT_MS = 1000;
/** TTFT histogram: 5% wide buckets from 0.01 ms; anything longer than about 3 hours shares the last one. */
const TTFT_MIN_MS = 0.01;
const TTFT_RATIO = 1.05;
const TTFT_BUCKETS = 430;
const LOG_RATIO = Math.log(TTFT_RATIO);

interface Slot {
  /** Which second of the run this slot holds (its start / SLOT_MS); -1 when never used. */
  second: number;
  done: number;
  failed: number;
  outputTokens: number;
  ttftCount: number;
  readonly ttft: Uint32Array;
}

/** What the last `windowMs` of the run looked like. Rates are per second of the window's span. */
export interface WindowSnapshot {
  /** How much of the run the figures cover: the window, or less early in the run. */
  readonly spanMs: number;
  readonly done: number;
  readonly failed: number;
  readonly outputTokensPerS: number;
  readonly requestsPerS: number;
  /** Null without a first token in the window. Within 2.5% (half a bucket) of the exact figure. */
  readonly ttftP50Ms: number | null;
  readonly ttftP99Ms: number | null;
}

export interface FinishedRequest {
  readonly ok: boolean;
  readonly ttftMs: number | null;
  readonly outputTokens: number | null;
}

export class RollingWindow {
  readonly #slots: Slot[];
  readonly #windowMs: number;

  /** `windowMs`: a whole number of seconds. */
  constructor(windowMs: number) {
    this.#windowMs = windowMs;
    this.#slots = Array.from({ length: Math.round(windowMs / SLOT_MS) }, () => ({
      second: -1,
      done: 0,
      failed: 0,
      outputTokens: 0,
      ttftCount: 0,
      ttft: new Uint32Array(TTFT_BUCKETS),
    }));
  }

  /** A request that finished `atMs` after the run's start. */
  add(atMs: number, request: FinishedRequest): void {
    const slot = this.#slotFor(Math.floor(atMs / SLOT_MS));
    slot.done++;
    if (!request.ok) slot.failed++;
    if (request.outputTokens !== null) slot.outputTokens += request.outputTokens;
    if (request.ttftMs !== null) {
      const bucket = bucketOf(request.ttftMs);
      slot.ttft[bucket] = (slot.ttft[bucket] as number) + 1;
      slot.ttftCount++;
    }
  }

  /** The figures of the window ending `nowMs` after the run's start. */
  snapshot(nowMs: number): WindowSnapshot {
    const current = Math.floor(nowMs / SLOT_MS);
    const oldest = current - this.#slots.length + 1;
    let done = 0;
    let failed = 0;
    let outputTokens = 0;
    let ttftCount = 0;
    const ttft = new Uint32Array(TTFT_BUCKETS);
    for (const slot of this.#slots) {
      if (slot.second < oldest || slot.second > current) continue;
      done += slot.done;
      failed += slot.failed;
      outputTokens += slot.outputTokens;
      ttftCount += slot.ttftCount;
      if (slot.ttftCount === 0) continue;
      for (let i = 0; i < TTFT_BUCKETS; i++) ttft[i] = (ttft[i] as number) + (slot.ttft[i] as number);
    }
    // The current slot is only partly over: the window spans the whole older slots and the current one so far.
    const spanMs = Math.max(1, Math.min(nowMs, this.#windowMs - SLOT_MS + (nowMs % SLOT_MS)));
    return {
      spanMs,
      done,
      failed,
      outputTokensPerS: (outputTokens * 1000) / spanMs,
      requestsPerS: (done * 1000) / spanMs,
      ttftP50Ms: quantileOf(ttft, ttftCount, 0.5),
      ttftP99Ms: quantileOf(ttft, ttftCount, 0.99),
    };
  }

  #slotFor(second: number): Slot {
    const slot = this.#slots[second % this.#slots.length] as Slot;
    if (slot.second !== second) {
      slot.second = second;
      slot.done = 0;
      slot.failed = 0;
      slot.outputTokens = 0;
      if (slot.ttftCount > 0) slot.ttft.fill(0);
      slot.ttftCount = 0;
    }
    return slot;
  }
}

function bucketOf(ms: number): number {
  if (!(ms > TTFT_MIN_MS)) return 0;
  return Math.min(TTFT_BUCKETS - 1, Math.ceil(Math.log(ms / TTFT_MIN_MS) / LOG_RATIO));
}

/** The nearest-rank quantile, read as the middle (geometric) of its bucket. */
function quantileOf(counts: Uint32Array, total: number, q: number): number | null {
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (let i = 0; i < counts.length; i++) {
    seen += counts[i] as number;
    if (seen >= rank) return i === 0 ? TTFT_MIN_MS : TTFT_MIN_MS * TTFT_RATIO ** (i - 0.5);
  }
  return null;
}
