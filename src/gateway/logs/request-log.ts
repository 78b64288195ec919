// The one log line per finished request (info level), written from its record: what a person scanning the log
// needs to find a request and see how it went. Keys and bodies never appear; the record file has the rest. The
// error text is the record's, whose upstream keys were scrubbed where it was set (exchange-outcome.ts), so the
// line and the record cannot disagree about it.
import type { Logger } from 'pino';
import type { RecordSink } from '../records/record.js';

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
