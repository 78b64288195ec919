// The load model of a GPU serving engine, reduced to what shapes latency: at most `maxNumSeqs` sequences run at
// once, and only while their KV blocks fit (kv-cache.ts); later arrivals wait in a FIFO queue (their time to first
// token grows), and every step slows as the batch grows. A rate sweep against the simulator therefore shows a
// knee, as one against a real GPU does: concurrency-bound at the seat limit, memory-bound when the cache runs out.
//
// Memory pressure is handled as vLLM V1 does: when a running sequence needs one more block and none is free, the
// most recently admitted running sequence is preempted (its blocks freed, back to the front of the queue) and,
// when readmitted, recomputes its whole context, prompt and tokens generated so far, from scratch.
import type { KvCache, KvHold } from './kv-cache.js';

export type SeatState = 'waiting' | 'running' | 'released';

export interface SeatOwner {
  /** The hash of each full block of its context so far (prompt, then generated), for the prefix cache. */
  readonly blockHashes: readonly string[];
  /** Tokens the sequence holds when (re)admitted: its prompt, plus what it generated before a preemption. */
  contextTokens(): number;
  /** Admitted: run the prefill of the context, less `cachedTokens` found in the prefix cache. */
  prefill(cachedTokens: number): void;
  /** Preempted: stop generating; it is back in the queue and will be started again. */
  preempt(): void;
}

export interface Seat {
  state: SeatState;
  readonly owner: SeatOwner;
  hold: KvHold | undefined;
}

export interface SchedulerSnapshot {
  readonly running: number;
  readonly waiting: number;
}

/** What the scheduler reports as it goes, for /metrics; each call is one event, never a scan. */
export interface SchedulerEvents {
  changed(state: SchedulerSnapshot): void;
  admitted(contextTokens: number, cachedTokens: number): void;
  preempted(): void;
}

const NO_EVENTS: SchedulerEvents = { changed() {}, admitted() {}, preempted() {} };

export class BatchScheduler {
  /** In admission order: the last one is the first to be preempted. */
  private readonly runningSeats: Seat[] = [];
  private readonly queue: Seat[] = [];
  private retryArmed = false;
  preemptions = 0;

  constructor(
    private readonly maxNumSeqs: number,
    private readonly batchSlowdown: number,
    readonly kv: KvCache,
    private readonly events: SchedulerEvents = NO_EVENTS,
  ) {}

  get running(): number {
    return this.runningSeats.length;
  }

  get waiting(): number {
    return this.queue.length;
  }

  /** Factor applied to every step's duration with the current batch: 1 for a lone sequence. */
  slowdown(): number {
    return 1 + this.batchSlowdown * Math.max(0, this.runningSeats.length - 1);
  }

  /** Starts the sequence at once when a seat and its blocks are free and nobody waits before it; else queues it. */
  admit(owner: SeatOwner): Seat {
    const seat: Seat = { state: 'waiting', owner, hold: undefined };
    if (this.queue.length > 0 || !this.tryRun(seat)) {
      this.queue.push(seat);
      this.changed();
    }
    return seat;
  }

  /**
   * Makes room for the sequence to reach `tokens` tokens, preempting the latest-admitted running sequences while
   * the pool is short. False when `seat` itself had to be preempted (its owner's preempt() has been called).
   */
  grow(seat: Seat, tokens: number): boolean {
    const hold = seat.hold as KvHold;
    while (!this.kv.grow(hold, tokens)) {
      const victim = this.runningSeats[this.runningSeats.length - 1] as Seat;
      this.preempt(victim);
      if (victim === seat) return false;
    }
    return true;
  }

  /** The sequence filled blocks with generated tokens: with prefix caching they become cached too. */
  filled(seat: Seat): void {
    if (seat.hold) this.kv.cacheFullBlocks(seat.hold, seat.owner.blockHashes);
  }

  /** Frees the seat (finished, failed or cancelled) and starts the waiting sequences that now fit. */
  release(seat: Seat): void {
    if (seat.state === 'released') return;
    const wasRunning = seat.state === 'running';
    seat.state = 'released';
    if (!wasRunning) {
      const index = this.queue.indexOf(seat);
      if (index >= 0) this.queue.splice(index, 1);
      this.changed();
      return;
    }
    this.stopRunning(seat);
    this.schedule();
  }

  private preempt(seat: Seat): void {
    this.stopRunning(seat);
    seat.state = 'waiting';
    this.queue.unshift(seat);
    this.preemptions++;
    this.events.preempted();
    this.changed();
    seat.owner.preempt();
    // vLLM admits nothing in a step that preempted; the queue is looked at again on the next turn of the loop.
    if (!this.retryArmed) {
      this.retryArmed = true;
      setImmediate(() => {
        this.retryArmed = false;
        this.schedule();
      });
    }
  }

  private stopRunning(seat: Seat): void {
    if (seat.hold) this.kv.release(seat.hold);
    seat.hold = undefined;
    const index = this.runningSeats.lastIndexOf(seat);
    if (index >= 0) this.runningSeats.splice(index, 1);
  }

  /** First come, first served: when the head of the queue does not fit, nobody behind it starts. */
  private schedule(): void {
    let started = false;
    for (let next = this.queue.shift(); next !== undefined; next = this.queue.shift()) {
      if (!this.tryRun(next)) {
        this.queue.unshift(next);
        break;
      }
      started = true;
    }
    if (!started) this.changed();
  }

  private tryRun(seat: Seat): boolean {
    if (this.runningSeats.length >= this.maxNumSeqs) return false;
    const tokens = seat.owner.contextTokens();
    const hold = this.kv.admit(seat.owner.blockHashes, tokens);
    if (hold === undefined) return false;
    seat.hold = hold;
    seat.state = 'running';
    this.runningSeats.push(seat);
    this.events.admitted(tokens, hold.cachedTokens);
    this.changed();
    seat.owner.prefill(hold.cachedTokens);
    return true;
  }

  private changed(): void {
    this.events.changed({ running: this.runningSeats.length, waiting: this.queue.length });
  }
}
