// The simulator as a library: tests and the demo start it in-process with `startSimulator(options)`.
import type { AddressInfo } from 'node:net';
import { resolveSimConfig, type SimConfig, type SimOptions } from './config.js';
import type { KvCapacity } from './kv-capacity.js';
import type { LatenessSummary } from './lateness-stats.js';
import type { RequestTruth } from './request-truth.js';
import { createSimulatorServer } from './server.js';
import { SimSpans } from './sim-spans.js';
import { createSimulatorState } from './simulator-state.js';

export type { SimConfig, SimOptions } from './config.js';
export type { RequestTruth } from './request-truth.js';

export interface RunningSimulator {
  /** `http://host:port`, without `/v1`. */
  readonly url: string;
  readonly port: number;
  readonly config: SimConfig;
  /** The KV cache's size, decided at start (kv-capacity.ts). */
  readonly kvCapacity: KvCapacity;
  truth(requestId: string): RequestTruth | undefined;
  lateness(): LatenessSummary;
  /** Stops accepting, cuts open streams, and waits for the truth log to be written. */
  close(): Promise<void>;
}

/** Starts a simulator. Unlike the CLI, the programmatic default port is 0 (any free port). */
export async function startSimulator(
  options: SimOptions = {},
  /** Where the OTEL_* variables are read (span export); the process's by default. */
  env: NodeJS.ProcessEnv = process.env,
): Promise<RunningSimulator> {
  const config = resolveSimConfig({ port: 0, ...options });
  const state = createSimulatorState(config, await SimSpans.fromConfig(config.otlpTracesEndpoint, env));
  const server = createSimulatorServer(state);
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return {
    url: `http://${host}:${port}`,
    port,
    config,
    kvCapacity: state.capacity,
    truth: (requestId) => state.env.truths.get(requestId),
    lateness: () => state.lateness.summary(),
    async close() {
      state.env.clock.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await state.env.truths.flush();
      await state.env.spans?.shutdown();
    },
  };
}
