// Typing of what the gateway adds to Fastify's request: its measurement, created when the request arrives.
import type { RequestMeasurement } from './measurement.js';

declare module 'fastify' {
  interface FastifyRequest {
    measurement: RequestMeasurement;
  }
}
