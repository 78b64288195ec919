// The gateway's logger: pino, JSON, with keys redacted, written off the request path. Lines are batched by
// sonic-boom (written once 4 KiB are buffered, or every 250 ms) instead of one synchronous write per line: the
// per-request log line then costs a string, not a system call. The buffer is flushed when the gateway closes;
// a process killed outright loses at most the last 250 ms of log lines (never a record: records have their own
// writer).
import { type DestinationStream, type Logger, pino } from 'pino';
import { CREDENTIAL_HEADERS } from './credential-headers.js';

/** Credential headers pino replaces with [Redacted] wherever a log line carries headers. */
export const REDACTED_PATHS = ['req.headers', 'headers', 'err.headers'].flatMap((where) =>
  CREDENTIAL_HEADERS.map((name) => `${where}["${name}"]`),
);

const BATCH_BYTES = 4096;
const FLUSH_EVERY_MS = 250;

/** A batched destination: standard output by default, or a file path. */
export function logDestination(dest: number | string = 1): DestinationStream {
  return pino.destination({ dest, sync: false, minLength: BATCH_BYTES, periodicFlush: FLUSH_EVERY_MS });
}

export function createGatewayLogger(level: string, destination = logDestination()): Logger {
  return pino({ level, redact: REDACTED_PATHS }, destination);
}
