// Builds filler text of a wanted token length for the given tokenizer, from seeded common words. Exact for the
// built-in rule (one word = one token); for a real tokenizer it corrects by adding or removing words until the
// count matches, which converges in a few steps because common words are single tokens there too.

import type { SeededRandom } from '../../src/shared/random.js';
import type { Tokenizer } from '../tokenizer/tokenizer.js';

function word(random: SeededRandom): string {
  return COMMON_WORDS[random.int(0, COMMON_WORDS.length - 1)] as string;
}

/** Text of about `tokens` tokens (exactly, whenever the corrections converge); '' for 0. */
export function textOfTokens(tokenizer: Tokenizer, tokens: number, random: SeededRandom): string {
  if (tokens <= 0) return '';
  const words: string[] = [];
  for (let i = 0; i < tokens; i++) words.push(word(random));
  return fitToTokens(tokenizer, words, () => word(random), tokens, 1);
}

// ---- Common words ----
// Everyday English words, each one token under the built-in rule and, with a leading space, one token in the
// common BPE vocabularies, so text of a wanted token length can be built by counting words.

export const COMMON_WORDS: readonly string[] = Object.freeze(
  (
    'time year people way day man thing woman life child world school state family student group country ' +
    'problem hand part place case week company system program question work government number night point ' +
    'home water room mother area money story fact month lot right study book eye job word business issue side ' +
    'kind head house service friend father power hour game line end member law car city community name ' +
    'president team minute idea kid body information back parent face others level office door health person ' +
    'art war history party result change morning reason research girl guy moment air teacher force education ' +
    'say get make go know take see come think look want give use find tell ask seem feel try leave call ' +
    'good new first last long great little own other old right big high different small large next early ' +
    'young important few public bad same able open full clear simple short strong light easy hard ready ' +
    'about after again against along also always another around because before between both during each ' +
    'even every here just later maybe more most never often only over since still then there through today ' +
    'together under until very where while without yet green river stone cloud garden paper window music ' +
    'market table letter signal bridge engine planet ocean forest winter summer coffee bread silver yellow'
  ).split(' '),
);

// ---- Fitting vocabulary words to a token length ----
// Text of an exact token length from a sequence of vocabulary words, for tokenizers where a word is not always
// one token: words are added from the sequence or dropped from the end until the count is right, as vLLM
// re-encodes and pads its synthetic prompts. Under the built-in rule the words are one token each and the text
// is returned as it is.

const MAX_CORRECTIONS = 64;

/** `words` joined, made `tokens` long by the tokenizer, adding `next()` words or dropping the last ones (keeping
 *  at least `minWords`). */
export function fitToTokens(
  tokenizer: Tokenizer,
  words: string[],
  next: () => string,
  tokens: number,
  minWords = 0,
): string {
  for (let step = 0; step < MAX_CORRECTIONS; step++) {
    const count = tokenizer.count(words.join(' '));
    if (count === tokens) break;
    if (count > tokens)
      words.length = Math.max(minWords, words.length - Math.max(1, Math.floor((count - tokens) / 2)));
    else for (let i = 0; i < Math.max(1, Math.floor((tokens - count) / 2)); i++) words.push(next());
  }
  return words.join(' ');
}
