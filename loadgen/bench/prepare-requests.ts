// Dataset samples -> bodies on the wire, serialized once before the run so that sending costs no JSON work; and
// for a run bounded by time, the same bodies cycled to as many requests as it may send.

import type { SampleRequest } from '../datasets/sample-request.js';
import type { PreparedRequest } from '../engine/engine.js';
import { buildPayload, type PayloadOptions } from './payload.js';

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
