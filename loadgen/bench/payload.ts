// The request bodies, built once before the run (the send path only writes bytes). Same fields as vLLM's
// benchmark sends, so a server sees the same load from either tool: greedy sampling (temperature 0) unless told
// otherwise, streaming with usage in the last chunk, and the requested output length. --extra-body is merged
// last, so it can override anything.

import type { SampleRequest } from '../datasets/sample-request.js';
import type { WireProtocol } from '../engine/engine.js';

export type ChatContentFormat = 'string' | 'parts';
export type MaxTokensField = 'max_tokens' | 'max_completion_tokens';

export interface PayloadOptions {
  readonly protocol: WireProtocol;
  /** The `model` field (--served-model-name, else --model). */
  readonly model: string;
  /** Chat only: plain string content (what most clients send) or vLLM's list of parts. */
  readonly chatContent: ChatContentFormat;
  readonly maxTokensField: MaxTokensField;
  readonly ignoreEos: boolean;
  /** stream_options.include_usage: the server then reports output tokens itself. */
  readonly includeUsage: boolean;
  readonly temperature: number;
  readonly extraBody: Readonly<Record<string, unknown>>;
}

export function buildPayload(sample: SampleRequest, options: PayloadOptions): Record<string, unknown> {
  const body: Record<string, unknown> = { model: options.model };
  if (options.protocol === 'openai-chat') {
    const content = options.chatContent === 'parts' ? [{ type: 'text', text: sample.prompt }] : sample.prompt;
    body['messages'] = [{ role: 'user', content }];
  } else {
    body['prompt'] = sample.prompt;
  }
  body['temperature'] = options.temperature;
  body[options.maxTokensField] = sample.outputTokens;
  body['stream'] = true;
  if (options.includeUsage) body['stream_options'] = { include_usage: true };
  if (options.ignoreEos) body['ignore_eos'] = true;
  return { ...body, ...options.extraBody };
}
