// The protocol table: every protocol tokenmeter speaks, one folder each, and the lookups the gateway, the load
// generator, the doctor and the CLI use. The protocol name type is derived here from their objects, and exported
// only here.
import { anthropicMessages } from './anthropic-messages/descriptor.js';
import { openAiChat } from './openai-chat/descriptor.js';
import { openAiCompletions } from './openai-completions/descriptor.js';
import { openAiResponses } from './openai-responses/descriptor.js';
import { BEARER_AUTH, type Protocol, type UpstreamAuth } from './protocol.js';

export { BEARER_AUTH, keyHeader, keyHeaderShown } from './protocol.js';

export const PROTOCOLS = Object.freeze([
  openAiChat,
  openAiCompletions,
  anthropicMessages,
  openAiResponses,
] as const);

/** `openai-chat`, `openai-completions`, `anthropic-messages`, `openai-responses`. */
export type ProtocolName = (typeof PROTOCOLS)[number]['name'];
/** An endpoint's first segment (`chat`, `completions`, `messages`, `responses`). */
export type EndpointFamily = (typeof PROTOCOLS)[number]['family'];
/** One of the table's protocols. */
export type KnownProtocol = Protocol<ProtocolName, EndpointFamily>;

const BY_NAME: ReadonlyMap<string, KnownProtocol> = new Map(PROTOCOLS.map((p) => [p.name, p]));
const BY_ENDPOINT: ReadonlyMap<string, KnownProtocol> = new Map(PROTOCOLS.map((p) => [p.endpoint, p]));
const BY_FAMILY: ReadonlyMap<string, KnownProtocol> = new Map(PROTOCOLS.map((p) => [p.family, p]));

export function protocolByName(name: ProtocolName): KnownProtocol;
export function protocolByName(name: string): KnownProtocol | undefined;
export function protocolByName(name: string): KnownProtocol | undefined {
  return BY_NAME.get(name);
}

/** The protocol served at `endpoint` (what follows `/v1/`), or undefined for an untimed one (models, ...). */
export function protocolByEndpoint(endpoint: string): KnownProtocol | undefined {
  return BY_ENDPOINT.get(endpoint);
}

/** The first segment of `endpoint`: `messages/count_tokens` belongs to `messages`. */
export function familyOf(endpoint: string): string {
  const slash = endpoint.indexOf('/');
  return slash < 0 ? endpoint : endpoint.slice(0, slash);
}

/** The protocol whose family `endpoint` belongs to (its first segment), or undefined. */
export function protocolByFamily(endpoint: string): KnownProtocol | undefined {
  return BY_FAMILY.get(familyOf(endpoint));
}

/**
 * How the upstream wants its key for an endpoint of `protocol`'s family (the protocol found once, by
 * protocolByFamily): that protocol's way, else (models, embeddings, ...: no protocol) a bearer token.
 */
export function upstreamAuthOf(protocol: KnownProtocol | undefined): UpstreamAuth {
  return protocol?.auth ?? BEARER_AUTH;
}

export type {
  Body,
  BodyOptions,
  ChatContentFormat,
  JsonAnswerFacts,
  KeyHeader,
  KeyHeaderField,
  MaxTokensField,
  PayloadSample,
  Protocol,
  UpstreamAuth,
  VersionHeader,
} from './protocol.js';
