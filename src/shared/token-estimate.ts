// The built-in token counting rule, used wherever no real tokenizer is configured: by the simulator to count
// prompt tokens, and by the gateway and load generator to count output tokens when the upstream sends no usage.
//
// Rule: every run of letters/digits (with an optional leading space) is one token, every other visible
// character (punctuation, symbols, emoji) is one token, and every CJK character is one token. Whitespace alone
// is free. This tracks BPE tokenizers within roughly +-25% on English prose and is exact for the simulator's own
// output, which emits one word per token.

const CJK = '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}';
const TOKEN_PATTERN = new RegExp(`[${CJK}]|(?:(?![${CJK}])[\\p{L}\\p{N}_])+|[^\\s]`, 'gu');

export function estimateTokens(text: string): number {
  if (text === '') return 0;
  let count = 0;
  TOKEN_PATTERN.lastIndex = 0;
  while (TOKEN_PATTERN.exec(text) !== null) count++;
  return count;
}

/** The tokens of `text` under the same rule, as strings: what prefix hashing of a prompt splits it into. */
export function estimatedTokenPieces(text: string): string[] {
  return text.match(TOKEN_PATTERN) ?? [];
}
