// Text of an exact token length from a sequence of vocabulary words, for tokenizers where a word is not always
// one token: words are added from the sequence or dropped from the end until the count is right, as vLLM
// re-encodes and pads its synthetic prompts. Under the built-in rule the words are one token each and the text
// is returned as it is.

import type { Tokenizer } from '../tokenizer/tokenizer.js';

const MAX_CORRECTIONS = 64;

/** `words` joined, made `tokens` long by the tokenizer, adding `next()` words or dropping the last ones. */
export function fitToTokens(
  tokenizer: Tokenizer,
  words: string[],
  next: () => string,
  tokens: number,
): string {
  for (let step = 0; step < MAX_CORRECTIONS; step++) {
    const count = tokenizer.count(words.join(' '));
    if (count === tokens) break;
    if (count > tokens)
      words.length = Math.max(0, words.length - Math.max(1, Math.floor((count - tokens) / 2)));
    else for (let i = 0; i < Math.max(1, Math.floor((tokens - count) / 2)); i++) words.push(next());
  }
  return words.join(' ');
}
