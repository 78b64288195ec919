// Joins the spans a server exports to the requests that were measured here, and holds each finished request's
// record until its span comes, for a bounded time and count. A server's span names its parent: the span of the
// side that called it (the gateway's, or the load generator's when it calls the server directly), so the join
// key is (trace id, caller's span id) and nothing else in the trace can claim a request.
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
  /** How long a finished request's record waits for its span. */
  readonly waitMs: number;
  /** Records held at once; past it the oldest is released without waiting longer. */
  readonly maxWaiting: number;
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
  readonly startUnixNano: bigint;
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
  /** Requests in flight or held, by trace id + span id. */
  readonly #entries = new Map<string, Entry<T>>();
  /** The held ones, oldest first (a Map keeps insertion order). */
  readonly #waiting = new Map<string, Entry<T>>();
  #timer: NodeJS.Timeout | null = null;
  #closed = false;

  constructor(options: SpanJoinOptions<T>) {
    this.#options = options;
  }

  /** Records held now. */
  get waiting(): number {
    return this.#waiting.size;
  }

  /** A request measured here began: its span may come before it finishes. */
  expect(traceId: string, spanId: string, startUnixNano: bigint): void {
    if (this.#closed) return;
    this.#entries.set(traceId + spanId, { startUnixNano, segments: undefined, held: undefined });
  }

  /** A request finished: `item` is released now if its span came, else after waitMs at the latest. */
  settle(traceId: string, spanId: string, startUnixNano: bigint, item: T): void {
    const key = traceId + spanId;
    const entry = this.#entries.get(key) ?? { startUnixNano, segments: undefined, held: undefined };
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
    const key = span.traceId + span.parentSpanId;
    const entry = this.#entries.get(key);
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
    }
    return true;
  }

  /** Releases every held record now, and every later one at once: no record waits past shutdown. */
  close(): void {
    this.#closed = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    while (this.#waiting.size > 0) this.#releaseOldest('recordsFlushed');
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
