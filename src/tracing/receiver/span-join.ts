// Joins the spans a server exports to the requests that were measured here, and holds each finished request's
// record until its span comes, for a bounded time and count. The caller says what identifies a request in a span
// (`spanKey`): the gateway uses the trace id and the span's parent, its own span (a client may send many requests
// in one trace); the load generator, which starts a trace per request, the trace id alone (its requests may reach
// the server directly or through a gateway, whose span is then the parent).
//
// Entries exist only for requests measured here: from `expect` (the request arrived) or `settle` (it finished)
// until the record is released. A span arriving before its request finished (the server exported early, the
// client read slowly) is kept on the entry; one arriving for no entry is dropped and counted. Memory is bounded
// by the requests in flight (the gateway's own limit) plus `maxWaiting` records held.
//
// Held records are released in the order they finished, which is also the order of their deadlines (the wait is
// the same for all), so one timer for the oldest is enough.
import { performance } from 'node:perf_hooks';
import type { ReceivedSpan } from './received-span.js';
import { type ServerSegments, serverSegmentsOf } from './server-segments.js';

export interface SpanJoinOptions<T> {
  /** The key of the request a span would belong to, as `expect` and `settle` are given it. */
  readonly spanKey: (span: ReceivedSpan) => string;
  /** How long a finished request's record waits for its span. */
  readonly waitMs: number;
  /** Records held at once; past it the oldest is released without waiting longer. */
  readonly maxWaiting: number;
  /**
   * For callers that cannot make a request known when it starts (`expect`): a span for no known request is kept
   * up to waitMs (at most maxWaiting of them) in case its request finishes later. Off: such a span is dropped.
   */
  readonly earlySpans?: boolean;
  /** Called exactly once per settled item, with the server's segments when its span joined. */
  readonly release: (item: T, server: ServerSegments | undefined) => void;
}

/** How each released record fared, and each offered span. */
export interface SpanJoinStats {
  /** Spans that joined a request measured here. */
  spansJoined: number;
  /** Spans with no request measured here (other traffic of the server, or too late), or with no server segments. */
  spansUnmatched: number;
  /** Records released with the server's segments. */
  recordsJoined: number;
  /** Records released without, because their span did not come within waitMs. */
  recordsTimedOut: number;
  /** Records released early, without, because maxWaiting records were already held. */
  recordsEvicted: number;
  /** Records released without, at close (shutdown flushes every held record). */
  recordsFlushed: number;
}

interface Entry<T> {
  readonly startUnixNano: bigint | null;
  segments: ServerSegments | undefined;
  held: { readonly item: T; readonly deadline: number } | undefined;
}

/** The wall-clock Unix time of a `performance.now()` stamp, in nanoseconds (microsecond resolution). */
export function unixNanoOf(monotonicMs: number): bigint {
  return BigInt(Math.round((performance.timeOrigin + monotonicMs) * 1000)) * 1000n;
}

export class SpanJoin<T> {
  readonly stats: SpanJoinStats = {
    spansJoined: 0,
    spansUnmatched: 0,
    recordsJoined: 0,
    recordsTimedOut: 0,
    recordsEvicted: 0,
    recordsFlushed: 0,
  };
  readonly #options: SpanJoinOptions<T>;
  /** Requests in flight or held, by key. */
  readonly #entries = new Map<string, Entry<T>>();
  /** The held ones, oldest first (a Map keeps insertion order). */
  readonly #waiting = new Map<string, Entry<T>>();
  /** With earlySpans: spans for no known request yet, oldest first, each with when it stops waiting. */
  readonly #early = new Map<string, { readonly span: ReceivedSpan; readonly deadline: number }>();
  #timer: NodeJS.Timeout | null = null;
  #closed = false;
  readonly #onDrained: (() => void)[] = [];

  constructor(options: SpanJoinOptions<T>) {
    this.#options = options;
  }

  /** Records held now. */
  get waiting(): number {
    return this.#waiting.size;
  }

  /**
   * A request measured here began: its span may come before it finishes. `startUnixNano`: its start by this
   * host's wall clock, for the span's `startMs`; null leaves `startMs` out.
   */
  expect(key: string, startUnixNano: bigint | null): void {
    if (this.#closed) return;
    this.#entries.set(key, { startUnixNano, segments: undefined, held: undefined });
  }

  /** A request finished: `item` is released now if its span came, else after waitMs at the latest. */
  settle(key: string, startUnixNano: bigint | null, item: T): void {
    const entry = this.#entries.get(key) ?? { startUnixNano, segments: undefined, held: undefined };
    const early = this.#early.get(key);
    if (early !== undefined) {
      this.#early.delete(key);
      entry.segments = serverSegmentsOf(early.span, entry.startUnixNano);
      this.stats.spansJoined++;
    }
    if (entry.segments !== undefined || this.#closed || this.#options.waitMs <= 0) {
      this.#entries.delete(key);
      this.#release(entry, item);
      return;
    }
    if (this.#waiting.size >= this.#options.maxWaiting) this.#releaseOldest('recordsEvicted');
    entry.held = { item, deadline: performance.now() + this.#options.waitMs };
    this.#entries.set(key, entry);
    this.#waiting.set(key, entry);
    if (this.#timer === null) this.#arm();
  }

  /** A span arrived: true when it joined a request measured here. */
  offer(span: ReceivedSpan): boolean {
    const key = this.#options.spanKey(span);
    const entry = this.#entries.get(key);
    if (entry === undefined && this.#options.earlySpans === true && !this.#closed)
      return this.#keepEarly(key, span);
    const segments = entry === undefined ? undefined : serverSegmentsOf(span, entry.startUnixNano);
    if (entry === undefined || segments === undefined) {
      this.stats.spansUnmatched++;
      return false;
    }
    this.stats.spansJoined++;
    entry.segments = segments;
    const held = entry.held;
    if (held !== undefined) {
      this.#entries.delete(key);
      this.#waiting.delete(key);
      this.#release(entry, held.item);
      if (this.#waiting.size === 0) this.#notifyDrained();
    }
    return true;
  }

  /** Keeps a server's span whose request is not known yet; spans past their wait go first (in order). */
  #keepEarly(key: string, span: ReceivedSpan): boolean {
    if (serverSegmentsOf(span, null) === undefined) {
      this.stats.spansUnmatched++;
      return false;
    }
    const now = performance.now();
    for (const [oldKey, old] of this.#early) {
      if (old.deadline > now && this.#early.size < this.#options.maxWaiting) break;
      this.#early.delete(oldKey);
      this.stats.spansUnmatched++;
    }
    this.#early.set(key, { span, deadline: now + this.#options.waitMs });
    return true;
  }

  /** Resolves once no record is held (at once when none is): each was joined, timed out or flushed. */
  drained(): Promise<void> {
    if (this.#waiting.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#onDrained.push(resolve));
  }

  /** Releases every held record now, and every later one at once: no record waits past shutdown. */
  close(): void {
    this.#closed = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    while (this.#waiting.size > 0) this.#releaseOldest('recordsFlushed');
    this.stats.spansUnmatched += this.#early.size;
    this.#early.clear();
    this.#notifyDrained();
  }

  #notifyDrained(): void {
    for (const resolve of this.#onDrained.splice(0)) resolve();
  }

  #release(entry: Entry<T>, item: T): void {
    if (entry.segments !== undefined) this.stats.recordsJoined++;
    this.#options.release(item, entry.segments);
  }

  #releaseOldest(reason: 'recordsTimedOut' | 'recordsEvicted' | 'recordsFlushed'): void {
    const first = this.#waiting.entries().next();
    if (first.done === true) return;
    const [key, entry] = first.value;
    this.#waiting.delete(key);
    this.#entries.delete(key);
    this.stats[reason]++;
    if (entry.held !== undefined) this.#options.release(entry.held.item, undefined);
  }

  readonly #expire = (): void => {
    this.#timer = null;
    const now = performance.now();
    for (const entry of this.#waiting.values()) {
      if ((entry.held?.deadline ?? 0) > now) break;
      this.#releaseOldest('recordsTimedOut');
    }
    if (this.#waiting.size > 0) this.#arm();
    else this.#notifyDrained();
  };

  #arm(): void {
    const oldest = this.#waiting.values().next();
    if (oldest.done === true) return;
    const delay = Math.max(0, (oldest.value.held?.deadline ?? 0) - performance.now());
    // Unref'd: held records never keep a process alive; shutdown releases them through close().
    this.#timer = setTimeout(this.#expire, delay);
    this.#timer.unref();
  }
}
