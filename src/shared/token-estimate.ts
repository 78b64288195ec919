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
  // test() advances lastIndex like exec() but builds no match array: the gateway counts every streamed chunk.
  while (TOKEN_PATTERN.test(text)) count++;
  return count;
}

/**
 * Calls `visit` with each token's text under the same rule, in order, and returns the count. The simulator hashes
 * these pieces into prompt blocks, so equal prompt prefixes give equal blocks (its prefix cache).
 */
export function forEachEstimatedToken(text: string, visit: (piece: string) => void): number {
  if (text === '') return 0;
  let count = 0;
  TOKEN_PATTERN.lastIndex = 0;
  for (let match = TOKEN_PATTERN.exec(text); match !== null; match = TOKEN_PATTERN.exec(text)) {
    visit(match[0]);
    count++;
  }
  return count;
}

/**
 * Splits `text` into its tokens under the same rule, each with the whitespace before it, so the pieces joined give
 * `text` back and each piece counts exactly one token (trailing whitespace rides on the last piece). The simulator
 * streams a tool call's arguments in these pieces.
 */
export function splitEstimatedTokens(text: string): string[] {
  const pieces: string[] = [];
  let start = 0;
  TOKEN_PATTERN.lastIndex = 0;
  for (let match = TOKEN_PATTERN.exec(text); match !== null; match = TOKEN_PATTERN.exec(text)) {
    const end = match.index + match[0].length;
    pieces.push(text.slice(start, end));
    start = end;
  }
  if (start < text.length && pieces.length > 0) pieces[pieces.length - 1] += text.slice(start);
  return pieces;
}
