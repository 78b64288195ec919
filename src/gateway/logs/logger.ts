// The gateway's logger: pino, with keys redacted, written off the request path, as JSON lines or, for a person at
// a terminal, as pretty lines (pretty-log.ts). Lines are batched by
// sonic-boom (written once 3.5 KiB are buffered, or every 250 ms) instead of one synchronous write per line: the
// per-request log line then costs a string, not a system call. The buffer is flushed when the gateway closes;
// a process killed outright loses at most the last 250 ms of log lines (never a record: records have their own
// writer). The one line per finished request (requestLogSink) is at the end.
import { type DestinationStream, type Logger, pino, symbols } from 'pino';
import type { OptionSpec } from '../../shared/option-schema.js';
import { CREDENTIAL_HEADERS } from '../exchange/hop-by-hop.js';
import type { RecordSink } from '../records/record.js';
import { prettyDestination } from './pretty-log.js';

/**
 * What the gateway's parts write to the log with: pino's logger is one, and so is the Fastify application's (the
 * same logger, seen through Fastify's type), so a part can be handed either.
 */
export interface LineLog {
  info(facts: object | string, message?: string): void;
  warn(facts: object | string, message?: string): void;
  error(facts: object | string, message?: string): void;
}

/** Credential headers pino replaces with [Redacted] wherever a log line carries headers. */
export const REDACTED_PATHS = ['req.headers', 'headers', 'err.headers'].flatMap((where) =>
  CREDENTIAL_HEADERS.map((name) => `${where}["${name}"]`),
);

const BATCH_BYTES = 3584;
/**
 * Each write carries whole lines and at most PIPE_BUF (4096 bytes on Linux), which a pipe takes atomically: the
 * workers of `serve --workers N` share one standard output, and a longer write could be interleaved with another
 * worker's. sonic-boom wants a batch smaller than this; 3.5 KiB leaves room for the line that completes a batch
 * (lines are about 300 bytes; a longer one starts the next write), and a batch near the bound takes fewer writes,
 * each a round trip through libuv's threadpool.
 */
const MAX_WRITE_BYTES = 4096;
const FLUSH_EVERY_MS = 250;

/** A batched destination: standard output by default, or a file path. */
export function logDestination(dest: number | string = 1): DestinationStream {
  return pino.destination({
    dest,
    sync: false,
    minLength: BATCH_BYTES,
    maxWrite: MAX_WRITE_BYTES,
    periodicFlush: FLUSH_EVERY_MS,
  });
}

export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** auto: pretty for a person at a terminal, JSON for everything else (containers, pipes, files, tests). */
export function resolveLogFormat(format: LogFormat, toTerminal: boolean): 'json' | 'pretty' {
  if (format !== 'auto') return format;
  return toTerminal ? 'pretty' : 'json';
}

// ---- log format option ----
// `--log-format`, shared by the commands that run a gateway (`serve`, `demo`): pretty lines for a person at a
// terminal, JSON lines for everything else.

export const LOG_FORMAT_OPTION = {
  name: 'log-format',
  type: 'string',
  valueName: 'FORMAT',
  env: 'TOKENMETER_LOG_FORMAT',
  choices: LOG_FORMATS,
  default: 'auto',
  help: 'Log lines as json, or pretty for reading; auto: pretty when the output is a terminal, else json',
} as const satisfies OptionSpec;

/** The format the logger writes to `output` in. */
export function logFormatFor(
  options: { readonly 'log-format': LogFormat },
  output: { readonly isTTY?: boolean },
): 'json' | 'pretty' {
  return resolveLogFormat(options['log-format'], output.isTTY === true);
}

export function createGatewayLogger(
  level: string,
  destination = logDestination(),
  format: 'json' | 'pretty' = 'json',
): Logger {
  // Redaction happens before serialization, so the pretty destination only ever sees redacted lines.
  return pino(
    { level, redact: REDACTED_PATHS },
    format === 'json' ? destination : prettyDestination(destination),
  );
}

// The one log line per finished request (info level), written from its record: what a person scanning the log
// needs to find a request and see how it went. Keys and bodies never appear; the record file has the rest. The
// error text is the record's, whose upstream keys were scrubbed where it was set (exchange-outcome.ts), so the
// line and the record cannot disagree about it.
export function requestLogSink(log: Logger): RecordSink {
  // The level is fixed at start: below info the sink is a no-op, not an object built per request for nothing.
  if (!log.isLevelEnabled('info')) return () => {};
  return (record) => {
    log.info(
      {
        requestId: record.requestId,
        outcome: record.outcome,
        status: record.status,
        method: record.method,
        path: record.pathAsked,
        upstream: record.upstream,
        model: record.modelAsked,
        ttftMs: record.ttftMs,
        e2eMs: record.e2eMs,
        outputTokens: record.outputTokens,
        overheadMs: record.gatewayOverheadMs,
        ...(record.error === null ? {} : { error: record.error }),
        ...(record.hint === null ? {} : { hint: record.hint }),
      },
      'request finished',
    );
  };
}

// Writes what a pino logger's destination still holds now, on this thread. Its batched writes otherwise go
// through libuv's threadpool, which a parked file operation may be holding (endDespiteParkedWrite in src/shared/records-writer.ts).
export function flushLogSync(logger: Logger): void {
  const destination = (logger as unknown as Record<symbol, unknown>)[symbols.streamSym] as
    | { flushSync?: () => void }
    | undefined;
  try {
    destination?.flushSync?.();
  } catch {
    // Not ready, or destroyed: nothing more can be said.
  }
}
