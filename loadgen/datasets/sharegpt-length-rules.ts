// vLLM's length filter for ShareGPT samples: drop a pair whose prompt is under 4 tokens, whose reply is under 4
// tokens (unless the output length is fixed by --sharegpt-output-len), whose prompt is over 1024 tokens, or
// whose prompt + reply is over 2048 tokens. Limits are inclusive: exactly 4, 1024 or 2048 passes.

export interface ShareGptLengthLimits {
  minLen: number;
  maxPromptLen: number;
  maxTotalLen: number;
}

export const SHAREGPT_LENGTH_LIMITS: Readonly<ShareGptLengthLimits> = Object.freeze({
  minLen: 4,
  maxPromptLen: 1024,
  maxTotalLen: 2048,
});

/** The filter's reasons, in the order vLLM checks them. */
export const LENGTH_REJECTIONS = [
  'prompt too short',
  'reply too short',
  'prompt too long',
  'prompt + reply too long',
] as const;

export type LengthRejection = (typeof LENGTH_REJECTIONS)[number];

export function isLengthRejection(why: string): why is LengthRejection {
  return (LENGTH_REJECTIONS as readonly string[]).includes(why);
}

/** Why a pair fails the filter (the first rule it breaks, in vLLM's order), or undefined when it passes. */
export function lengthRejection(
  promptTokens: number,
  outputTokens: number,
  outputLenFixed: boolean,
  limits: ShareGptLengthLimits = SHAREGPT_LENGTH_LIMITS,
): LengthRejection | undefined {
  if (promptTokens < limits.minLen) return 'prompt too short';
  if (!outputLenFixed && outputTokens < limits.minLen) return 'reply too short';
  if (promptTokens > limits.maxPromptLen) return 'prompt too long';
  if (promptTokens + outputTokens > limits.maxTotalLen) return 'prompt + reply too long';
  return undefined;
}
