// What tokenmeter knows about one API protocol, as data: where it is served, how its upstream takes a key, what
// its stream and its non-streamed answer mean, and what body the load generator sends. One frozen object per
// protocol, in its own folder (<protocol>/descriptor.ts, beside its stream classifier and its one usage reader;
// what OpenAI chat and completions share is in openai-choices/); the gateway, the load generator, the doctor and
// the CLI read these objects instead of keeping tables of their own, so adding a protocol is adding a folder. Only
// the simulator, the server side, writes the wire formats itself (src/sim/protocols).
import type { EventClassifier, JsonAnswerFacts } from '../measure/answer-facts.js';

/**
 * How the upstream wants its key. `authorization` is `Authorization: Bearer KEY` (OpenAI and everything modelled on
 * it); `x-api-key` is Anthropic's, which answers 401 to a bearer token.
 */
export type KeyHeader = 'authorization' | 'x-api-key';

export interface VersionHeader {
  readonly name: string;
  /** Sent when the client sent none; a client's own version is kept. */
  readonly value: string;
}

export interface UpstreamAuth {
  readonly keyHeader: KeyHeader;
  /** A header the API rejects requests without (Anthropic's `anthropic-version`). */
  readonly versionHeader: VersionHeader | null;
}

export type { JsonAnswerFacts };

export type ChatContentFormat = 'string' | 'parts';
export type MaxTokensField = 'max_tokens' | 'max_completion_tokens';

/** What a load generator's body is made of (a dataset's sample fits it as it is). */
export interface PayloadSample {
  readonly prompt: string;
  /** Output tokens to ask for. */
  readonly outputTokens: number;
  /** The run's shared system prompt (--shared-system-prompt-length), put where the protocol has a place for it. */
  readonly systemPrompt?: string;
}

/** The run's choices that shape a body, whatever its protocol (each protocol uses the ones it has fields for). */
export interface BodyOptions {
  /** Message-based bodies: plain string content (what most clients send) or a list of text parts. */
  readonly chatContent: ChatContentFormat;
  /** OpenAI chat and completions only; the other protocols each have one fixed field. */
  readonly maxTokensField: MaxTokensField;
  /** Sent only where the protocol has the field (Protocol.hasIgnoreEos). */
  readonly ignoreEos: boolean;
  /** stream_options.include_usage, where usage must be asked for (Protocol.usageOnRequest). */
  readonly includeUsage: boolean;
  /**
   * vLLM's `stream_options.continuous_usage_stats` beside include_usage: a running usage on every chunk, so each
   * chunk's tokens are known (OpenAI chat and completions; bench --per-chunk-usage).
   */
  readonly continuousUsage?: boolean;
  /** Sent only when given (--temperature): otherwise the server's default applies, as with vLLM's client. */
  readonly temperature?: number;
}

export type Body = Record<string, unknown>;

/** A user message's content in the protocol's own part type ('text' for chat and Anthropic). */
export function userContent(prompt: string, format: ChatContentFormat, partType: string): unknown {
  return format === 'parts' ? [{ type: partType, text: prompt }] : prompt;
}

/** A plain stream: the protocol always sends usage and has no ignore_eos (Protocol.streamFields). */
export function streamOnly(): Body {
  return { stream: true };
}

export interface Protocol<Name extends string = string, Family extends string = string> {
  /** As used in configuration and records; its stream classifier carries the same name. */
  readonly name: Name;
  /** The path under `/v1`: `chat/completions`, `messages`, ... */
  readonly endpoint: string;
  /**
   * The endpoint's first segment. The whole family shares the protocol's auth, so `messages/count_tokens` (which
   * Claude Code calls) is authenticated like `messages`.
   */
  readonly family: Family;
  readonly auth: UpstreamAuth;
  /**
   * Streamed usage comes only when asked for with `stream_options.include_usage` (OpenAI chat and completions);
   * Anthropic Messages and Responses streams always carry it.
   */
  readonly usageOnRequest: boolean;
  /** The body has vLLM's `ignore_eos` (its extension of OpenAI's); the others cannot force an output length. */
  readonly hasIgnoreEos: boolean;
  /** Reads the stream's events, for the meter (src/measure) the gateway and the load generator hand it to. */
  readonly classifier: EventClassifier;
  /** Reads a non-streamed answer: usage, finish reason, or the error a 200 may carry instead. */
  readonly readAnswer: (bytes: Buffer) => JsonAnswerFacts;
  /** The load generator's streamed request body, without `model` (pure: the same input gives the same body). */
  readonly buildBody: (sample: PayloadSample, options: BodyOptions) => Body;
  /** What a body of this protocol needs to stream, with usage where it must be asked for (replayed bodies). */
  readonly streamFields: (options: BodyOptions) => Body;
  /**
   * The body field holding the conversation as a list of {role, content} messages, where a multi-turn session
   * puts its earlier turns (loadgen/bench/prepare-requests.ts); null for a single prompt (completions).
   */
  readonly conversationField: 'messages' | 'input' | null;
}

/** The header that carries a key upstream: its name and its value. */
export interface KeyHeaderField {
  readonly name: KeyHeader;
  readonly value: string;
}

/**
 * The header carrying `key` to an upstream that takes keys as `auth` says: `x-api-key: KEY`, or
 * `authorization: Bearer KEY`. The one place that writes it, for the gateway, the load generator, the doctor and
 * the hints alike.
 */
export function keyHeader(auth: UpstreamAuth, key: string): KeyHeaderField {
  return auth.keyHeader === 'x-api-key'
    ? { name: 'x-api-key', value: key }
    : { name: 'authorization', value: `Bearer ${key}` };
}

/** The key header as a hint shows it, with a placeholder for the key (HintContext.keyHeader). */
export function keyHeaderShown(auth: UpstreamAuth): string {
  const { name, value } = keyHeader(auth, '<key>');
  return `${name}: ${value}`;
}

/** Untimed endpoints (models, embeddings, ...) take a bearer token. */
export const BEARER_AUTH: UpstreamAuth = Object.freeze({ keyHeader: 'authorization', versionHeader: null });

/** Freezes a protocol's object, keeping its name and family as literal types (ProtocolName is derived from them). */
export function defineProtocol<const Name extends string, const Family extends string>(
  protocol: Protocol<Name, Family>,
): Protocol<Name, Family> {
  return Object.freeze(protocol);
}
