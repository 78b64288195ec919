// The default tokenizer: the project's built-in estimate rule (src/shared/token-estimate.ts). No special tokens
// exist under this rule, so `addSpecialTokens` changes nothing.

import { estimateTokens } from '../../src/shared/token-estimate.js';
import type { Tokenizer } from './tokenizer.js';

export const BUILTIN_TOKENIZER_NAME = 'builtin';

export const builtinTokenizer: Tokenizer = {
  name: BUILTIN_TOKENIZER_NAME,
  count: (text: string) => estimateTokens(text),
};
