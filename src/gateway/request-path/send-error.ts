// Sends a gateway-originated error in OpenAI's format (errors.ts) and concludes the request's outcome with it.
// The gateway's own endpoints (served by Fastify) answer their errors with the same head.
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { GATEWAY_HEADER, GATEWAY_HEADER_VALUE } from '../../shared/gateway-header.js';
import type { RequestMeasurement } from '../records/measurement.js';
import type { GatewayError } from './errors.js';

/** The head of every error answer the gateway originates, for a body of `body`. */
export function errorHeaders(body: string): OutgoingHttpHeaders {
  return {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    [GATEWAY_HEADER]: GATEWAY_HEADER_VALUE,
  };
}

export function sendGatewayError(m: RequestMeasurement, response: ServerResponse, error: GatewayError): void {
  m.conclude(error.outcome, error.message);
  if (response.headersSent || response.destroyed) return;
  const body = error.toBody();
  const headers = errorHeaders(body);
  headers['x-request-id'] = m.requestId;
  response.writeHead(error.status, headers);
  response.end(body);
}
