// The OpenTelemetry GenAI semantic conventions, as tokenmeter's client and gateway spans use them: which version
// is emitted, the span name, and the attributes both spans share. The conventions are in development; their
// stability note (https://opentelemetry.io/docs/specs/semconv/gen-ai/) asks instrumentations to keep emitting
// v1.36.0 by default and to emit the latest experimental version when OTEL_SEMCONV_STABILITY_OPT_IN contains
// `gen_ai_latest_experimental`. "Latest" here is v1.45.0, the version of @opentelemetry/semantic-conventions
// installed with the SDK, whose GenAI attribute names this file was checked against. The span
// kinds the spans use are at the end.
import type { Attributes, SpanKind } from '@opentelemetry/api';
import type { ProtocolName } from '../protocols/index.js';

export type GenAiSemconvVersion = '1.36.0' | '1.45.0';

const OPT_IN = 'gen_ai_latest_experimental';

/** The version to emit, from OTEL_SEMCONV_STABILITY_OPT_IN (a comma-separated list). */
export function genAiSemconvVersion(env: NodeJS.ProcessEnv): GenAiSemconvVersion {
  const optIns = (env['OTEL_SEMCONV_STABILITY_OPT_IN'] ?? '').split(',').map((s) => s.trim());
  return optIns.includes(OPT_IN) ? '1.45.0' : '1.36.0';
}

/** `gen_ai.operation.name` and the provider, by the API protocol spoken (not by who serves it: a vLLM behind the
 *  OpenAI protocol is `openai`, as the conventions say for OpenAI-compatible servers). */
const OPERATIONS: Readonly<Record<ProtocolName, { operation: string; provider: string }>> = {
  'openai-chat': { operation: 'chat', provider: 'openai' },
  'openai-completions': { operation: 'text_completion', provider: 'openai' },
  'anthropic-messages': { operation: 'chat', provider: 'anthropic' },
  'openai-responses': { operation: 'chat', provider: 'openai' },
};

/** What one inference request was, as either side measured it. */
export interface GenAiFacts {
  readonly protocol: ProtocolName | undefined;
  readonly requestModel: string | null;
  readonly responseModel: string | null;
  readonly stream: boolean;
  readonly inputTokens: number | null;
  readonly outputTokens: number | null;
  readonly finishReason: string | null;
  /** The GenAI server the request went to (the gateway: its upstream; the client: its target). */
  readonly server: URL | null;
  /** The outcome when it was not ok (src/measure/outcome.ts): a low-cardinality error.type. */
  readonly errorType: string | null;
  /** Seconds from the request to its first content chunk. */
  readonly timeToFirstChunkS: number | null;
}

/** The first token's span event name. */
export const FIRST_TOKEN_EVENT = 'gen_ai.first_token';
/** tokenmeter's own event: the first answer token of a model that reasoned first (no GenAI convention names it). */
export const FIRST_OUTPUT_TOKEN_EVENT = 'tokenmeter.first_output_token';

/** `{gen_ai.operation.name} {gen_ai.request.model}`, the conventions' inference span name. */
export function genAiSpanName(facts: GenAiFacts): string {
  const operation = facts.protocol === undefined ? 'http' : OPERATIONS[facts.protocol].operation;
  return facts.requestModel === null ? operation : `${operation} ${facts.requestModel}`;
}

function serverPort(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}

export function genAiAttributes(facts: GenAiFacts, version: GenAiSemconvVersion): Attributes {
  const attributes: Attributes = {};
  if (facts.protocol !== undefined) {
    const { operation, provider } = OPERATIONS[facts.protocol];
    attributes['gen_ai.operation.name'] = operation;
    // v1.37.0 renamed gen_ai.system to gen_ai.provider.name.
    attributes[version === '1.36.0' ? 'gen_ai.system' : 'gen_ai.provider.name'] = provider;
  }
  if (facts.requestModel !== null) attributes['gen_ai.request.model'] = facts.requestModel;
  if (facts.responseModel !== null) attributes['gen_ai.response.model'] = facts.responseModel;
  if (facts.inputTokens !== null) attributes['gen_ai.usage.input_tokens'] = facts.inputTokens;
  if (facts.outputTokens !== null) attributes['gen_ai.usage.output_tokens'] = facts.outputTokens;
  if (facts.finishReason !== null) attributes['gen_ai.response.finish_reasons'] = [facts.finishReason];
  if (facts.server !== null) {
    attributes['server.address'] = facts.server.hostname.replace(/^\[|\]$/g, '');
    attributes['server.port'] = serverPort(facts.server);
  }
  if (facts.errorType !== null) attributes['error.type'] = facts.errorType;
  if (version === '1.45.0') {
    attributes['gen_ai.request.stream'] = facts.stream;
    if (facts.timeToFirstChunkS !== null)
      attributes['gen_ai.response.time_to_first_chunk'] = facts.timeToFirstChunkS;
  }
  return attributes;
}

// The two span kinds this project's spans use, as the values of @opentelemetry/api's SpanKind enum, without
// importing that enum's value: doing so loads the API package's 44 modules. `bench` loads nothing else of it, so
// with spans off it pays nothing; `serve` and `sim` load it anyway through prom-client (its exemplars). Only the
// type is imported here; test/tracing/span-kinds.test.ts holds the numbers to the enum's.
export const SERVER_SPAN_KIND = 1 as SpanKind.SERVER;
export const CLIENT_SPAN_KIND = 2 as SpanKind.CLIENT;
