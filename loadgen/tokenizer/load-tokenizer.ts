// Chooses the tokenizer from `--tokenizer`: none (or "builtin") gives the built-in estimate rule, anything else
// is a local Hugging Face tokenizer folder or file.

import { BUILTIN_TOKENIZER_NAME, builtinTokenizer } from './builtin-tokenizer.js';
import { loadHuggingFaceTokenizer } from './hf-tokenizer.js';
import type { Tokenizer } from './tokenizer.js';

export async function loadTokenizer(spec: string | undefined): Promise<Tokenizer> {
  if (spec === undefined || spec === '' || spec === BUILTIN_TOKENIZER_NAME) return builtinTokenizer;
  return loadHuggingFaceTokenizer(spec);
}
