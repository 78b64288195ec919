// What the breakdown tests share: a port free a moment ago (a span receiver's port must be known before the
// simulator that exports to it starts), the export settings, and a bench run in process.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BenchRunResult } from '../../loadgen/bench/aggregate.js';
import { runBench } from '../../loadgen/bench/run-bench.js';
import { benchSettingsFrom } from '../../src/cli/bench-settings.js';
import { DEFAULT_MODEL_NAME } from '../../src/sim/config.js';

/** JSON exports (the test receiver reads JSON), sent 20 ms after a span ends. */
export const EXPORT_ENV = {
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
  OTEL_BSP_SCHEDULE_DELAY: '20',
};

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** `tokenmeter bench` in process with these options (records not written, no progress line). */
export function benchInProcess(options: Record<string, string | number | boolean>): Promise<BenchRunResult> {
  const settings = benchSettingsFrom(
    { 'no-records': true, 'disable-tqdm': true, ...options },
    [],
    EXPORT_ENV,
    'breakdown',
  );
  return runBench({
    settings,
    model: DEFAULT_MODEL_NAME,
    recordsPath: null,
    signal: new AbortController().signal,
    progressStream: { write: () => true, isTTY: false },
  });
}
