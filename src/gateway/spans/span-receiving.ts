// The gateway's side of the built-in span receiver (spanReceiver): the receiver on the metrics port, the join of
// each server span to the request it belongs to (by trace id and the gateway's span id, the server span's
// parent), and the wait: a finished request's record goes to the records file and the caller's sink only once its
// span joined or `waitMs` passed. Metrics and the log line do not wait (they carry nothing of the span).

import { ExportForwarder } from '../../tracing/receiver/export-forwarder.js';
import { SpanJoin, unixNanoOf } from '../../tracing/receiver/span-join.js';
import { SpanReceiver } from '../../tracing/receiver/span-receiver.js';
import type { ResolvedSpanReceiver } from '../config/config-resolve.js';
import type { GatewayKey } from '../config/gateway-keys.js';
import { bearerToken, matchesGatewayKey } from '../config/gateway-keys.js';
import type { RequestMeasurement } from '../records/measurement.js';
import type { RecordSink, RequestRecord } from '../records/record.js';

export class SpanReceiving {
  readonly join: SpanJoin<RequestRecord>;
  readonly receiver: SpanReceiver;
  readonly forwarder: ExportForwarder | null;

  /**
   * `token`: the metrics token (metrics.tokenEnv), which exporters must then send too (vLLM:
   * OTEL_EXPORTER_OTLP_TRACES_HEADERS=Authorization=Bearer%20<token>).
   */
  constructor(config: ResolvedSpanReceiver, token: GatewayKey | null, sinks: readonly RecordSink[]) {
    this.join = new SpanJoin<RequestRecord>({
      // The server's span continues the gateway's: its parent is the gateway's span of the request.
      spanKey: (span) => span.traceId + span.parentSpanId,
      waitMs: config.waitMs,
      maxWaiting: config.maxWaitingRecords,
      release: (record, server) => {
        const joined = server === undefined ? record : { ...record, server };
        for (const sink of sinks) sink(joined);
      },
    });
    this.forwarder = config.forwardUrl === null ? null : new ExportForwarder(config.forwardUrl);
    this.receiver = new SpanReceiver({
      sink: this.join,
      forwarder: this.forwarder,
      maxBodyBytes: config.maxBodyBytes,
      ...(token === null ? {} : { authorize: (authorization) => presentsToken(token, authorization) }),
    });
  }

  /** A request arrived: its server's span may come before the request finishes. */
  expect(m: RequestMeasurement): void {
    this.join.expect(m.trace.traceId + m.trace.spanId, unixNanoOf(m.receivedAt));
  }

  /** The record sink that holds a finished record until its span joins or the wait ends. */
  readonly hold = (record: RequestRecord): void => {
    this.join.settle(record.traceId + record.spanId, unixNanoOf(record.receivedAtMonotonicMs), record);
  };

  /** At shutdown, after the receiver stopped listening: every held record is released, none is lost. */
  async close(): Promise<void> {
    this.join.close();
    await this.forwarder?.close();
  }
}

function presentsToken(token: GatewayKey, authorization: string | undefined): boolean {
  const presented = bearerToken(authorization);
  return presented !== undefined && matchesGatewayKey(presented, [token]);
}
