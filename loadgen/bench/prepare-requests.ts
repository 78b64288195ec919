// Dataset samples -> bodies on the wire, serialized once before the run so that sending costs no JSON work; and
// for a run bounded by time, the same bodies cycled to as many requests as it may send.
// The bodies themselves (a request's payload, a session turn's body with its history) and each request's model
// under --lora-modules are the sections below.

import { type BodyOptions, type ProtocolName, protocolByName } from '../../src/protocols/index.js';
import { isJsonObject } from '../../src/shared/json-object.js';
import type { SampleRequest } from '../datasets/sample-request.js';
import type { PreparedRequest } from '../engine/engine.js';
import type { SessionMessage } from '../engine/session-engine.js';
import type { PythonRandom } from '../vllm-random/python-random.js';

export function prepareRequests(
  samples: readonly SampleRequest[],
  payload: PayloadOptions,
  requestIdPrefix: string,
  /** --lora-modules: the `model` of each sample, in place of payload.model. */
  models?: readonly string[],
): PreparedRequest[] {
  return samples.map((sample, index) => ({
    index,
    requestId: `${requestIdPrefix}${index}`,
    body: Buffer.from(
      JSON.stringify(buildPayload(sample, { ...payload, model: models?.[index] ?? payload.model })),
    ),
    promptTokens: sample.promptTokens,
  }));
}

/** `count` requests that go through `prepared` again and again: each its own index and request id, the bodies
 *  shared (a long run holds one copy of each). */
export function cycleRequests(
  prepared: readonly PreparedRequest[],
  count: number,
  requestIdPrefix: string,
): PreparedRequest[] {
  if (count <= prepared.length) return prepared.slice(0, count);
  return Array.from({ length: count }, (_, index) => {
    const source = prepared[index % prepared.length] as PreparedRequest;
    return { ...source, index, requestId: `${requestIdPrefix}${index}` };
  });
}

// ---- payload ----
// The request bodies, built once before the run (the send path only writes bytes). Each protocol builds its own
// (src/protocols): for the OpenAI backends, the same fields as vLLM's benchmark sends, so a server sees the same
// load from either tool: a temperature and the other sampling fields only when given (vLLM no longer forces
// temperature 0), streaming with usage in the last chunk, and the requested output length. Anthropic Messages and OpenAI Responses streams always carry usage and
// have no ignore_eos, so their bodies have neither. --extra-body is merged last, so it can override anything.

export interface PayloadOptions extends BodyOptions {
  readonly protocol: ProtocolName;
  /** The `model` field (--served-model-name, else --model). */
  readonly model: string;
  readonly extraBody: Readonly<Record<string, unknown>>;
}

export function buildPayload(sample: SampleRequest, options: PayloadOptions): Record<string, unknown> {
  const protocol = protocolByName(options.protocol);
  if (sample.recordedBody !== undefined) {
    // A replayed body needs, on top of what the client sent, a stream with usage where it is optional.
    return {
      ...sample.recordedBody,
      model: options.model,
      ...protocol.streamFields(options),
      ...options.extraBody,
    };
  }
  return { model: options.model, ...protocol.buildBody(sample, options), ...options.extraBody };
}

// ---- session bodies ----
// A multi-turn session's request body for one turn: the turn's own body (its user message, sampling fields,
// output length, stream options: the payload section above), with the session's earlier turns put before its message, each
// user message as the dataset had it and each assistant message as the model actually answered it. Where the
// conversation goes is the protocol's fact (conversationField); completions carry a single prompt and have no
// sessions.

/** Whether the protocol's bodies can carry a conversation. */
export function carriesConversation(options: Pick<PayloadOptions, 'protocol'>): boolean {
  return protocolByName(options.protocol).conversationField !== null;
}

export function sessionTurnBody(
  turn: SampleRequest,
  history: readonly SessionMessage[],
  options: PayloadOptions,
): Buffer {
  const body = buildPayload(turn, options);
  const field = protocolByName(options.protocol).conversationField;
  if (field !== null && history.length > 0) {
    const own = body[field];
    // Responses may take its input as a bare string; in a conversation it is the last user message.
    const last: unknown[] =
      typeof own === 'string' ? [{ role: 'user', content: own }] : Array.isArray(own) ? own : [];
    // A shared system message (--shared-system-prompt-length) opens the conversation, before the history.
    const isSystem = (message: unknown): boolean => isJsonObject(message) && message['role'] === 'system';
    body[field] = [...last.filter(isSystem), ...history, ...last.filter((message) => !isSystem(message))];
  }
  return Buffer.from(JSON.stringify(body));
}

// ---- lora modules ----
// --lora-modules: each request names one of the server's LoRA adapters as its `model`, as vLLM's client does:
// `random` (its default) draws one per request with Python's `random.choice`, continuing the global state the
// dataset left (so the same --seed picks the same adapters as vLLM), `round-robin` cycles through them in order.

export const LORA_ASSIGNMENTS = ['random', 'round-robin'] as const;
export type LoraAssignment = (typeof LORA_ASSIGNMENTS)[number];

export function loraModelNames(
  count: number,
  modules: readonly string[],
  assignment: LoraAssignment,
  random: PythonRandom,
): string[] {
  if (assignment === 'round-robin')
    return Array.from({ length: count }, (_, i) => modules[i % modules.length] as string);
  return Array.from({ length: count }, () => random.choice(modules));
}
