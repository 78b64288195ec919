// Header names (and key-bearing fields) pino replaces with [Redacted] wherever a log line carries them, compiled
// once into the logger: keys never reach a log.
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'headers.authorization',
  'headers["x-api-key"]',
  'err.headers.authorization',
];
