// Counts output tokens of a streamed text with the project's estimate rule (src/shared/token-estimate.ts) without
// keeping the text: the count over all chunks equals estimateTokens() of the whole text.
//
// The rule counts a run of (non-CJK) letters, digits and underscores as one token and every other visible
// character as one token, so two chunks counted apart differ from the whole only when a word run continues across
// the boundary ("Hel" + "lo"): then the two partial runs are one token.

import { estimateTokens } from '../shared/token-estimate.js';

// The character classes of token-estimate.ts; the test that compares with estimateTokens() guards their agreement.
const CJK = '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}';
const WORD_CHAR = `(?![${CJK}])[\\p{L}\\p{N}_]`;
const STARTS_WITH_WORD_CHAR = new RegExp(`^${WORD_CHAR}`, 'u');
const ENDS_WITH_WORD_CHAR = new RegExp(`${WORD_CHAR}$`, 'u');

export class OutputTokenCounter {
  /** Estimated tokens of everything added so far. */
  total = 0;
  #endsInWord = false;

  /** Adds the next piece of text; returns how many tokens it added to the total. */
  add(text: string): number {
    if (text === '') return 0;
    let added = estimateTokens(text);
    if (this.#endsInWord && STARTS_WITH_WORD_CHAR.test(text)) added--;
    this.#endsInWord = ENDS_WITH_WORD_CHAR.test(text);
    this.total += added;
    return added;
  }
}
