// Dataset samples -> bodies on the wire, serialized once before the run so that sending costs no JSON work.

import type { SampleRequest } from '../datasets/sample-request.js';
import type { PreparedRequest } from '../engine/engine.js';
import { buildPayload, type PayloadOptions } from './payload.js';

export function prepareRequests(
  samples: readonly SampleRequest[],
  payload: PayloadOptions,
  requestIdPrefix: string,
): PreparedRequest[] {
  return samples.map((sample, index) => ({
    index,
    requestId: `${requestIdPrefix}${index}`,
    body: Buffer.from(JSON.stringify(buildPayload(sample, payload))),
    promptTokens: sample.promptTokens,
  }));
}
