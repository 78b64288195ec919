// What the load generator needs from a tokenizer: a token count (prompt lengths, and output lengths when the
// server sends no usage), and ids where the implementation has them.

import { estimateTokens } from '../../src/shared/token-estimate.js';

export interface CountOptions {
  /**
   * Count the special tokens the tokenizer's post-processor adds (a BOS token for Llama-style tokenizers).
   * vLLM measures dataset prompt and reply lengths with them (`tokenizer(text).input_ids`) and re-tokenized
   * output without them (`add_special_tokens=False`); pass true only to mirror the former.
   */
  addSpecialTokens?: boolean;
}

export interface Tokenizer {
  /** Shown in reports and saved as `tokenizer_id`. */
  readonly name: string;
  count(text: string, options?: CountOptions): number;
  encode?(text: string, options?: CountOptions): number[];
}

// ---- The built-in tokenizer ----
// The default tokenizer: the project's built-in estimate rule (src/shared/token-estimate.ts). No special tokens
// exist under this rule, so `addSpecialTokens` changes nothing.

export const BUILTIN_TOKENIZER_NAME = 'builtin';

export const builtinTokenizer: Tokenizer = {
  name: BUILTIN_TOKENIZER_NAME,
  count: (text: string) => estimateTokens(text),
};
