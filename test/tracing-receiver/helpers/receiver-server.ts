// A span receiver on the metrics port's own listener (src/gateway/metrics/metrics-listener.ts), for tests of the
// receiver alone: 127.0.0.1, port 0, /metrics rendering nothing of interest.
import { DEFAULT_CLIENT_LIMITS } from '../../../src/gateway/config/config.js';
import type { MetricsListener } from '../../../src/gateway/metrics/metrics-listener.js';
import { startMetricsListener } from '../../../src/gateway/metrics/metrics-listener.js';
import { type SpanReceiver, TRACES_PATH } from '../../../src/tracing/receiver/span-receiver.js';

export interface ReceiverServer {
  readonly url: string;
  close(): Promise<void>;
}

export async function startReceiverServer(receiver: SpanReceiver): Promise<ReceiverServer> {
  const listener: MetricsListener = await startMetricsListener(
    '127.0.0.1',
    0,
    async () => ({ status: 200, headers: { 'content-type': 'text/plain' }, body: '' }),
    () => {},
    DEFAULT_CLIENT_LIMITS,
    new Map([[TRACES_PATH, receiver.handle]]),
  );
  return { url: `http://127.0.0.1:${listener.address.port}${TRACES_PATH}`, close: () => listener.close() };
}
