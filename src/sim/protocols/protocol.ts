// What the simulator needs to know about an API protocol: where it is served, how its request reads, how its
// answer is written (streamed and not), how its errors look and how its clients send a key. The timing model,
// the queue, faults and ground truth are shared by every protocol, so all of them are timed the same way.
import type { IncomingMessage } from 'node:http';
import type { ProtocolName } from '../../protocols/index.js';
import type { PromptBlockHasher } from '../prompt-blocks.js';

/** Why an answer ended, before each protocol names it (`length` / `max_tokens` / `incomplete`, `tool_use`...). */
export type FinishReason = 'stop' | 'length' | 'tool_calls';

/** A tool the answer may call: one of the request's function tools, with the JSON schema of its arguments. */
export interface ToolSpec {
  readonly name: string;
  readonly schema: unknown;
}

/** The request's `tool_choice` in every protocol's terms (Anthropic's `any` is `required`, `tool` a name). */
export type ToolChoice = 'auto' | 'none' | 'required' | { readonly name: string };

/**
 * A tool call the simulator answers with (start-generation.ts): its id's random part, the tool, the arguments'
 * JSON.
 */
export interface PlannedToolCall {
  readonly idSuffix: string;
  readonly name: string;
  readonly arguments: string;
}

export interface GenerationRequest {
  readonly protocol: ProtocolName;
  readonly model: string | undefined;
  /** The prompt as text (tool calls, images and the tool list included): what the answer is derived from. */
  readonly promptText: string;
  readonly promptTokens: number;
  /** The prompt's KV block hashes (prompt-blocks.ts), what the prefix cache looks up; the generation continues it. */
  readonly blocks: PromptBlockHasher;
  readonly stream: boolean;
  /** OpenAI's `stream_options.include_usage`; protocols whose streams always carry usage set it true. */
  readonly includeUsage: boolean;
  /**
   * vLLM's `stream_options.continuous_usage_stats`, honoured only with include_usage as vLLM does: every chunk
   * carries the running usage (completion tokens so far). OpenAI only; the other protocols set it false.
   */
  readonly continuousUsage: boolean;
  readonly maxTokens: number | undefined;
  readonly ignoreEos: boolean;
  readonly stop: readonly string[];
  readonly temperature: number;
  /** OpenAI's `seed`: sampled answers to one prompt differ between seeds (and are equal for equal ones). */
  readonly samplingSeed: number | undefined;
  /** The function tools the answer may call (none for completions). */
  readonly tools: readonly ToolSpec[];
  readonly toolChoice: ToolChoice;
  /** Assistant turns in the history that called a tool: counted toward --max-tool-turns. */
  readonly toolTurns: number;
  /**
   * The reasoning effort the request asks for (Anthropic `thinking` with `output_config.effort`, Responses
   * `reasoning.effort`, chat `reasoning_effort`); undefined when it asks for none.
   */
  readonly reasoningEffort: string | undefined;
  /** Anthropic's `thinking.budget_tokens`: the most reasoning tokens the request allows. */
  readonly reasoningBudget: number | undefined;
  /** Responses: `previous_response_id`, whose chain's tool turns count toward the cap too. */
  readonly previousResponseId: string | undefined;
  /** Responses: `include` asks for `reasoning.encrypted_content`. */
  readonly encryptedReasoning: boolean;
}

/** The fields of a request that reads no tools, no reasoning request and no chain (completions, count_tokens). */
export const NO_AGENT_FIELDS = {
  samplingSeed: undefined,
  tools: [],
  toolChoice: 'auto',
  toolTurns: 0,
  reasoningEffort: undefined,
  reasoningBudget: undefined,
  previousResponseId: undefined,
  encryptedReasoning: false,
} as const satisfies Partial<GenerationRequest>;

export interface TokenUsage {
  readonly promptTokens: number;
  /** Every generated token, reasoning included (as OpenAI and vLLM count them). */
  readonly completionTokens: number;
  readonly reasoningTokens: number;
  /** Prompt tokens read from the prefix cache (part of promptTokens). */
  readonly cachedTokens: number;
  /** Whether the server reports cached tokens at all (prefix caching on). */
  readonly reportsCache: boolean;
}

/** The bytes of one answer. Streamed events are complete SSE events, `\n\n` included. */
export interface AnswerWire {
  /** Events written with the response headers, before any token (lifecycle events; '' when none). */
  opening(): string;
  /** Events written just before the first generated chunk (the OpenAI chat role delta; '' elsewhere). */
  beforeFirstContent(): string;
  /**
   * A reasoning delta (only when the context says the answer has a reasoning part; always before content).
   * `completionTokens`: the tokens generated so far, this delta's included (for a running usage where asked).
   */
  reasoning(text: string, completionTokens: number): string;
  /** An answer delta; the first one after reasoning also closes the reasoning part where the protocol has one. */
  content(text: string, completionTokens: number): string;
  /**
   * A piece of the tool call's arguments (only when the context has a tool call). The first one also opens the
   * call with its id and name (written in the same event where the protocol allows, so one chunk is one content
   * event) and closes the reasoning part where there is one.
   */
  toolArguments(text: string, completionTokens: number): string;
  /** Events after the last content chunk: finish, usage where asked for, end marker. */
  closing(finish: FinishReason, usage: TokenUsage): string;
  /** An error event inside a stream that already answered 200. */
  streamError(message: string): string;
  /** The whole non-streamed answer. */
  body(answer: AnswerTexts, finish: FinishReason, usage: TokenUsage): object;
}

export interface AnswerTexts {
  readonly reasoning: string;
  readonly text: string;
}

export interface WireContext {
  readonly id: string;
  readonly created: number;
  readonly model: string;
  readonly request: GenerationRequest;
  readonly roleChunk: 'with-first-token' | 'immediately';
  /** The answer starts with reasoning tokens (a reasoning model). */
  readonly reasoning: boolean;
  /** The chat delta field that carries reasoning. */
  readonly chatReasoningField: 'reasoning' | 'reasoning_content';
  /** The answer is this tool call (after its reasoning, if any) instead of text. */
  readonly toolCall: PlannedToolCall | undefined;
}

export interface SimProtocol {
  readonly name: ProtocolName;
  readonly path: string;
  /** Prefix of response ids (`chatcmpl`, `msg`...). */
  readonly idPrefix: string;
  parse(body: unknown): GenerationRequest;
  wire(context: WireContext): AnswerWire;
  /** An error body in this protocol's format. */
  error(status: number, message: string, code: string | null, param?: string | null): object;
  hasKey(req: IncomingMessage, key: string): boolean;
}

/** The id of an answer (`chatcmpl-...`, `msg-...`, `resp-...`): the protocol's prefix and the request id. */
export function answerId(protocol: SimProtocol, requestId: string): string {
  return `${protocol.idPrefix}-${requestId}`;
}

/** A request the protocol cannot serve: 400 for values it rejects, 422 for a body of the wrong shape. */
export class RequestRejection extends Error {
  constructor(
    readonly status: 400 | 422,
    message: string,
    readonly param: string | null = null,
  ) {
    super(message);
  }
}

export function bearerKey(req: IncomingMessage, key: string): boolean {
  return req.headers.authorization === `Bearer ${key}`;
}
