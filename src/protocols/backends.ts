// What each --backend (vLLM's names) means, in one table: the protocol it sends (src/protocols: body, endpoint,
// how the key is sent, what the protocol cannot express) and what the run tells the user about it. Target
// resolution, payloads, headers and the warnings before a run all read this table and the protocol's object
// instead of testing names.

import {
  type EndpointFamily,
  type KnownProtocol,
  keyHeader,
  PROTOCOLS,
  type ProtocolName,
  protocolByName,
} from './index.js';

export const BACKENDS = ['openai-chat', 'openai', 'vllm', 'anthropic-messages', 'openai-responses'] as const;
export type Backend = (typeof BACKENDS)[number];

export interface BackendSpec {
  readonly protocol: ProtocolName;
  /** What the body is, for error messages ("sends chat messages"). */
  readonly bodyDescription: string;
  /** Only the own family's paths are accepted (a completions server may live under any path, e.g. /generate). */
  readonly requiresOwnPath: boolean;
  /** Where the run looks for a key when neither --api-key nor --api-key-env is given (what its SDK reads). */
  readonly keyEnv: string;
}

const OPENAI_COMPLETIONS: BackendSpec = {
  protocol: 'openai-completions',
  bodyDescription: 'a completions body ("prompt")',
  requiresOwnPath: false,
  keyEnv: 'OPENAI_API_KEY',
};

export const BACKEND_SPECS: Readonly<Record<Backend, BackendSpec>> = {
  'openai-chat': {
    protocol: 'openai-chat',
    bodyDescription: 'chat messages',
    requiresOwnPath: true,
    keyEnv: 'OPENAI_API_KEY',
  },
  openai: OPENAI_COMPLETIONS,
  vllm: OPENAI_COMPLETIONS,
  'anthropic-messages': {
    protocol: 'anthropic-messages',
    bodyDescription: 'an Anthropic Messages body ("messages", "max_tokens")',
    requiresOwnPath: true,
    keyEnv: 'ANTHROPIC_API_KEY',
  },
  'openai-responses': {
    protocol: 'openai-responses',
    bodyDescription: 'a Responses body ("input", "max_output_tokens")',
    requiresOwnPath: true,
    keyEnv: 'OPENAI_API_KEY',
  },
};

/** The protocol `backend` sends. */
export function backendProtocol(backend: Backend): KnownProtocol {
  return protocolByName(BACKEND_SPECS[backend].protocol);
}

/** Where requests go when --endpoint is not given. */
export function defaultEndpoint(backend: Backend): string {
  return `/v1/${backendProtocol(backend).endpoint}`;
}

/** The backend to use for each family, named in mismatch errors and chosen when only --endpoint is given. */
export const BACKEND_OF_FAMILY: Readonly<Record<EndpointFamily, Backend>> = {
  chat: 'openai-chat',
  completions: 'openai',
  messages: 'anthropic-messages',
  responses: 'openai-responses',
};

/** Each family's endpoint at the end of a path; longer endpoints first (/v1/chat/completions also ends in /completions). */
const FAMILY_PATTERNS: ReadonlyArray<readonly [EndpointFamily, RegExp]> = [...PROTOCOLS]
  .sort((a, b) => b.endpoint.length - a.endpoint.length)
  .map((p) => [p.family, new RegExp(`/${p.endpoint}/?$`)]);

/** The family a path belongs to by its last segments, or undefined for a custom path (e.g. /generate). */
export function endpointFamily(path: string): EndpointFamily | undefined {
  return FAMILY_PATTERNS.find(([, pattern]) => pattern.test(path))?.[0];
}

// ---- A backend's request headers ----
// The headers every request of a run carries, in the backend's own form: `Authorization: Bearer KEY` for the
// OpenAI protocols, `x-api-key: KEY` plus `anthropic-version` for Anthropic's (which answers 401 to a bearer
// token). Used for the run and for the /v1/models lookup before it, so both authenticate alike.

/** content-type, the protocol's version header, then --header (may override those), then the key. */
export function requestHeaders(
  backend: Backend,
  key: string | undefined,
  extra: Readonly<Record<string, string>>,
): Record<string, string> {
  const auth = backendProtocol(backend).auth;
  const { versionHeader } = auth;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    ...(versionHeader === null ? {} : { [versionHeader.name]: versionHeader.value }),
    ...extra,
  };
  if (key === undefined) return headers;
  const { name, value } = keyHeader(auth, key);
  headers[name] = value;
  return headers;
}
