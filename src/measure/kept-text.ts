// The generated text a load generator keeps for one request (to re-tokenize it when the server reports no usage,
// as vLLM does, and for --save-detailed), bounded: a stream that never ends (a server that ignores max_tokens, a
// hostile upstream) must not grow one string until V8 refuses it ("Invalid string length", about 512 Mi
// characters) after taking the process past a gigabyte.

/**
 * Most characters of generated text kept per request: 4 Mi (about a million tokens at 4 characters a token, several
 * times the longest answer a model is asked for today; 4 to 8 MB of memory). Past it the text is no longer kept and
 * the load generator stops reading the answer (docs/metrics.md, "The load generator's record"). Also below the longest run of letters
 * the built-in token estimate's pattern can scan (about 8 Mi characters overflow its stack).
 */
export const MAX_KEPT_TEXT_CHARS = 4 * 1024 * 1024;

/** Pieces joined into one flat string at a time: a delta is often one token, and a string per delta costs more
 *  than its characters, as does a chain of concatenations. */
const PIECES_PER_JOIN = 1024;

export class KeptText {
  readonly maxChars: number;
  #joined: string[] = [];
  #pieces: string[] = [];
  #length = 0;
  #cut = false;

  constructor(maxChars = MAX_KEPT_TEXT_CHARS) {
    this.maxChars = maxChars;
  }

  /** Appends `piece`, unless that would pass the bound: then nothing more is kept and `cut` is true. */
  add(piece: string): void {
    if (this.#cut) return;
    if (this.#length + piece.length > this.maxChars) {
      this.#cut = true;
      return;
    }
    this.#length += piece.length;
    this.#pieces.push(piece);
    if (this.#pieces.length === PIECES_PER_JOIN) {
      this.#joined.push(this.#pieces.join(''));
      this.#pieces = [];
    }
  }

  /** True once a piece did not fit: the text kept is the answer's start, not all of it. */
  get cut(): boolean {
    return this.#cut;
  }

  get text(): string {
    return this.#joined.join('') + this.#pieces.join('');
  }
}
