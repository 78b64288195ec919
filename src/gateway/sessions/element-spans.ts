// Where the objects listed in a body's array member lie (a conversation's messages or input items), found by the
// body scan (body-scan.ts) as the bytes arrive, so a session's turns can be told apart by hashing whole messages
// (conversation.ts) without parsing the body. Bounded whatever the body holds: the first element's start, the
// count, and the spans of the last KEPT_ELEMENTS only; a turn adds a few messages to its conversation, so the
// last ones are the ones a session needs, and the ends of the first FIRST_KEPT_ENDS (a prompt's opening messages,
// the part sessions of one agent share: prompt-prefixes.ts).

/** The last elements whose spans are kept: far more than one agent turn adds (an answer and its tool results). */
export const KEPT_ELEMENTS = 128;

/** Array members whose elements are kept (a body has one conversation; tools and the like come beside it). */
export const MAX_ARRAY_MEMBERS_TRACKED = 4;

/** The first elements whose ends are kept whatever the count. */
export const FIRST_KEPT_ENDS = 4;

export class ElementSpans {
  /** Objects listed so far. */
  count = 0;
  /** Where the first one starts. */
  firstStart = -1;
  /** Start and end (exclusive) of the last KEPT_ELEMENTS, as a ring: element i at (i % KEPT_ELEMENTS) * 2. */
  readonly #ring = new Int32Array(KEPT_ELEMENTS * 2);
  readonly #firstEnds = new Int32Array(FIRST_KEPT_ENDS);

  add(start: number, end: number): void {
    if (this.count === 0) this.firstStart = start;
    if (this.count < FIRST_KEPT_ENDS) this.#firstEnds[this.count] = end;
    const slot = (this.count % KEPT_ELEMENTS) * 2;
    this.#ring[slot] = start;
    this.#ring[slot + 1] = end;
    this.count++;
  }

  /** The index of the oldest element whose span is kept. */
  get oldestKept(): number {
    return Math.max(0, this.count - KEPT_ELEMENTS);
  }

  /** Element `i`'s start; only for oldestKept <= i < count. */
  start(i: number): number {
    return this.#ring[(i % KEPT_ELEMENTS) * 2] as number;
  }

  /** Element `i`'s end (exclusive); only for oldestKept <= i < count. */
  end(i: number): number {
    return this.#ring[(i % KEPT_ELEMENTS) * 2 + 1] as number;
  }

  /** Element `i`'s end when it is known (one of the first FIRST_KEPT_ENDS or the kept ones); undefined otherwise. */
  knownEnd(i: number): number | undefined {
    if (i < 0 || i >= this.count) return undefined;
    if (i >= this.oldestKept) return this.end(i);
    return i < FIRST_KEPT_ENDS ? (this.#firstEnds[i] as number) : undefined;
  }
}
