// The request bodies, built once before the run (the send path only writes bytes). For the OpenAI backends, the
// same fields as vLLM's benchmark sends, so a server sees the same load from either tool: greedy sampling
// (temperature 0) unless told otherwise, streaming with usage in the last chunk, and the requested output length.
// Anthropic Messages and OpenAI Responses streams always carry usage and have no ignore_eos, so their bodies
// have neither. --extra-body is merged last, so it can override anything.

import type { SampleRequest } from '../datasets/sample-request.js';
import type { WireProtocol } from '../engine/engine.js';

export type ChatContentFormat = 'string' | 'parts';
export type MaxTokensField = 'max_tokens' | 'max_completion_tokens';

export interface PayloadOptions {
  readonly protocol: WireProtocol;
  /** The `model` field (--served-model-name, else --model). */
  readonly model: string;
  /** Message-based bodies: plain string content (what most clients send) or a list of text parts. */
  readonly chatContent: ChatContentFormat;
  /** OpenAI chat and completions only; the other protocols each have one fixed field. */
  readonly maxTokensField: MaxTokensField;
  /** Sent only where the protocol has the field (see BackendSpec.supportsIgnoreEos). */
  readonly ignoreEos: boolean;
  /** stream_options.include_usage: the server then reports output tokens itself. */
  readonly includeUsage: boolean;
  readonly temperature: number;
  readonly extraBody: Readonly<Record<string, unknown>>;
}

type Body = Record<string, unknown>;

/** A user message's content in the protocol's own part type ('text' for chat and Anthropic). */
function userContent(prompt: string, format: ChatContentFormat, partType: string): unknown {
  return format === 'parts' ? [{ type: partType, text: prompt }] : prompt;
}

/** OpenAI's stream tail: the usage chunk on request, and vLLM's ignore_eos. */
function openAiStreamFields(options: PayloadOptions): Body {
  return {
    stream: true,
    ...(options.includeUsage ? { stream_options: { include_usage: true } } : {}),
    ...(options.ignoreEos ? { ignore_eos: true } : {}),
  };
}

const BODIES: Readonly<Record<WireProtocol, (sample: SampleRequest, options: PayloadOptions) => Body>> = {
  'openai-chat': (sample, options) => ({
    messages: [{ role: 'user', content: userContent(sample.prompt, options.chatContent, 'text') }],
    temperature: options.temperature,
    [options.maxTokensField]: sample.outputTokens,
    ...openAiStreamFields(options),
  }),
  'openai-completions': (sample, options) => ({
    prompt: sample.prompt,
    temperature: options.temperature,
    [options.maxTokensField]: sample.outputTokens,
    ...openAiStreamFields(options),
  }),
  // max_tokens is required by the Messages API; usage always arrives (message_start + message_delta).
  'anthropic-messages': (sample, options) => ({
    max_tokens: sample.outputTokens,
    messages: [{ role: 'user', content: userContent(sample.prompt, options.chatContent, 'text') }],
    temperature: options.temperature,
    stream: true,
  }),
  // `input` as a plain string is a single user message; usage always arrives in response.completed.
  'openai-responses': (sample, options) => ({
    input:
      options.chatContent === 'parts'
        ? [{ role: 'user', content: userContent(sample.prompt, 'parts', 'input_text') }]
        : sample.prompt,
    temperature: options.temperature,
    max_output_tokens: sample.outputTokens,
    stream: true,
  }),
};

/** What a replayed body needs on top of what the client sent: a stream, with usage where it is optional. */
function replayStreamFields(options: PayloadOptions): Body {
  const openAi = options.protocol === 'openai-chat' || options.protocol === 'openai-completions';
  return openAi ? openAiStreamFields(options) : { stream: true };
}

export function buildPayload(sample: SampleRequest, options: PayloadOptions): Record<string, unknown> {
  if (sample.recordedBody !== undefined) {
    return {
      ...sample.recordedBody,
      model: options.model,
      ...replayStreamFields(options),
      ...options.extraBody,
    };
  }
  return { model: options.model, ...BODIES[options.protocol](sample, options), ...options.extraBody };
}
