// Sends a gateway-originated error in OpenAI's format and notes its outcome on the request's measurement.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { GATEWAY_HEADER, GATEWAY_HEADER_VALUE } from '../shared/gateway-header.js';
import type { GatewayError } from './errors.js';

export function sendGatewayError(request: FastifyRequest, reply: FastifyReply, error: GatewayError): void {
  const m = request.measurement;
  m.conclude(error.outcome, error.message);
  if (reply.sent || reply.raw.destroyed) return;
  reply
    .code(error.status)
    .header('content-type', 'application/json; charset=utf-8')
    .header(GATEWAY_HEADER, GATEWAY_HEADER_VALUE)
    .send(error.toBody());
}
