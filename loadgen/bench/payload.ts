// The request bodies, built once before the run (the send path only writes bytes). Each protocol builds its own
// (src/protocols): for the OpenAI backends, the same fields as vLLM's benchmark sends, so a server sees the same
// load from either tool: a temperature and the other sampling fields only when given (vLLM no longer forces
// temperature 0), streaming with usage in the last chunk, and the requested output length. Anthropic Messages and OpenAI Responses streams always carry usage and
// have no ignore_eos, so their bodies have neither. --extra-body is merged last, so it can override anything.

import { type BodyOptions, type ProtocolName, protocolByName } from '../../src/protocols/index.js';
import type { SampleRequest } from '../datasets/sample-request.js';

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
