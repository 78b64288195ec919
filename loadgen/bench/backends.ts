// What each --backend means on the wire, in one table: the body format (the stream classifier of the same name
// times it), the endpoint it belongs on, how the key is sent, and what the protocol cannot express. Target
// resolution, payloads, headers and the warnings before a run all read this table instead of testing names.

import type { WireProtocol } from '../engine/engine.js';

export const BACKENDS = ['openai-chat', 'openai', 'vllm', 'anthropic-messages', 'openai-responses'] as const;
export type Backend = (typeof BACKENDS)[number];

/** The endpoint families a path can belong to; a body fits exactly one of them. */
export type EndpointFamily = 'chat' | 'completions' | 'messages' | 'responses';

export type KeyHeader = 'bearer' | 'x-api-key';

export interface BackendSpec {
  readonly protocol: WireProtocol;
  readonly family: EndpointFamily;
  /** Where requests go when --endpoint is not given. */
  readonly defaultEndpoint: string;
  /** What the body is, for error messages ("sends chat messages"). */
  readonly bodyDescription: string;
  /** Only the own family's paths are accepted (a completions server may live under any path, e.g. /generate). */
  readonly requiresOwnPath: boolean;
  readonly keyHeader: KeyHeader;
  /** Sent with every request (before --header, which may override them). */
  readonly fixedHeaders: Readonly<Record<string, string>>;
  /** Where the run looks for a key when neither --api-key nor --api-key-env is given (what its SDK reads). */
  readonly keyEnv: string;
  /** The protocol has an `ignore_eos` field (vLLM's extension to OpenAI's); the others cannot force a length. */
  readonly supportsIgnoreEos: boolean;
}

/** Anthropic requires the version header; 2023-06-01 is the one its SDKs and Claude Code send. */
export const ANTHROPIC_VERSION = '2023-06-01';

const OPENAI_COMPLETIONS: BackendSpec = {
  protocol: 'openai-completions',
  family: 'completions',
  defaultEndpoint: '/v1/completions',
  bodyDescription: 'a completions body ("prompt")',
  requiresOwnPath: false,
  keyHeader: 'bearer',
  fixedHeaders: {},
  keyEnv: 'OPENAI_API_KEY',
  supportsIgnoreEos: true,
};

export const BACKEND_SPECS: Readonly<Record<Backend, BackendSpec>> = {
  'openai-chat': {
    protocol: 'openai-chat',
    family: 'chat',
    defaultEndpoint: '/v1/chat/completions',
    bodyDescription: 'chat messages',
    requiresOwnPath: true,
    keyHeader: 'bearer',
    fixedHeaders: {},
    keyEnv: 'OPENAI_API_KEY',
    supportsIgnoreEos: true,
  },
  openai: OPENAI_COMPLETIONS,
  vllm: OPENAI_COMPLETIONS,
  'anthropic-messages': {
    protocol: 'anthropic-messages',
    family: 'messages',
    defaultEndpoint: '/v1/messages',
    bodyDescription: 'an Anthropic Messages body ("messages", "max_tokens")',
    requiresOwnPath: true,
    keyHeader: 'x-api-key',
    fixedHeaders: { 'anthropic-version': ANTHROPIC_VERSION },
    keyEnv: 'ANTHROPIC_API_KEY',
    supportsIgnoreEos: false,
  },
  'openai-responses': {
    protocol: 'openai-responses',
    family: 'responses',
    defaultEndpoint: '/v1/responses',
    bodyDescription: 'a Responses body ("input", "max_output_tokens")',
    requiresOwnPath: true,
    keyHeader: 'bearer',
    fixedHeaders: {},
    keyEnv: 'OPENAI_API_KEY',
    supportsIgnoreEos: false,
  },
};

/** The backend to use for each family, named in mismatch errors and chosen when only --endpoint is given. */
export const BACKEND_OF_FAMILY: Readonly<Record<EndpointFamily, Backend>> = {
  chat: 'openai-chat',
  completions: 'openai',
  messages: 'anthropic-messages',
  responses: 'openai-responses',
};

const FAMILY_PATTERNS: ReadonlyArray<readonly [EndpointFamily, RegExp]> = [
  // Chat before completions: /v1/chat/completions also ends in /completions.
  ['chat', /\/chat\/completions\/?$/],
  ['completions', /\/completions\/?$/],
  ['messages', /\/messages\/?$/],
  ['responses', /\/responses\/?$/],
];

/** The family a path belongs to by its last segments, or undefined for a custom path (e.g. /generate). */
export function endpointFamily(path: string): EndpointFamily | undefined {
  return FAMILY_PATTERNS.find(([, pattern]) => pattern.test(path))?.[0];
}
