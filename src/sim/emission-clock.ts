// One timer for every pending token emission of every stream. A min-heap orders emissions by planned time, and a
// single setTimeout is armed for the earliest, so 1,000 concurrent streams cost one timer, not 1,000, and the
// lateness of each emission (actual minus planned) is measured where it happens.
import { performance } from 'node:perf_hooks';

export interface ScheduledEmission {
  readonly dueMs: number;
  /** Runs at (or just after) `dueMs` with the time it actually ran. Skipped when cancelled. */
  readonly run: (nowMs: number) => void;
  cancelled: boolean;
}

export class EmissionClock {
  private readonly heap: ScheduledEmission[] = [];
  private timer: NodeJS.Timeout | undefined;
  private armedForMs = Number.POSITIVE_INFINITY;
  private readonly fire = () => this.drain();

  constructor(private readonly onLateness: (lateMs: number) => void = () => {}) {}

  schedule(dueMs: number, run: (nowMs: number) => void): ScheduledEmission {
    const emission: ScheduledEmission = { dueMs, run, cancelled: false };
    this.push(emission);
    if (dueMs < this.armedForMs) this.arm();
    return emission;
  }

  get pending(): number {
    return this.heap.length;
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.heap.length = 0;
    this.armedForMs = Number.POSITIVE_INFINITY;
  }

  private arm(): void {
    if (this.timer) clearTimeout(this.timer);
    const next = this.heap[0];
    if (!next) {
      this.timer = undefined;
      this.armedForMs = Number.POSITIVE_INFINITY;
      return;
    }
    this.armedForMs = next.dueMs;
    // Node's timers have millisecond resolution and never fire early, so an emission is late by up to ~1 ms plus
    // whatever the event loop is busy with; that lateness is what onLateness reports.
    this.timer = setTimeout(this.fire, Math.max(0, next.dueMs - performance.now()));
  }

  private drain(): void {
    this.timer = undefined;
    this.armedForMs = Number.POSITIVE_INFINITY;
    for (;;) {
      const next = this.heap[0];
      if (!next) break;
      const now = performance.now();
      if (next.dueMs > now) break;
      this.pop();
      if (next.cancelled) continue;
      this.onLateness(now - next.dueMs);
      next.run(now);
    }
    this.arm();
  }

  private push(item: ScheduledEmission): void {
    const heap = this.heap;
    heap.push(item);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = heap[parent] as ScheduledEmission;
      if (p.dueMs <= item.dueMs) break;
      heap[i] = p;
      i = parent;
    }
    heap[i] = item;
  }

  private pop(): void {
    const heap = this.heap;
    const last = heap.pop();
    if (!last || heap.length === 0) return;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const child =
        right < heap.length &&
        (heap[right] as ScheduledEmission).dueMs < (heap[left] as ScheduledEmission).dueMs
          ? right
          : left;
      const c = heap[child] as ScheduledEmission;
      if (c.dueMs >= last.dueMs) break;
      heap[i] = c;
      i = child;
    }
    heap[i] = last;
  }
}
