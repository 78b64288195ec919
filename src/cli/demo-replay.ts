// The demo's second half: a tokenmeter gateway in front of the simulator (in this process, through buildGateway),
// and the bundled ShareGPT-format sample replayed through it by the open-loop load generator, with the summary
// people know from vLLM and the gateway's own timings beside the client's.

import type { AddressInfo } from 'node:net';
import { formatBenchReport, loadgenSummaryFor } from '../../loadgen/bench/bench-report.js';
import { runBench } from '../../loadgen/bench/run-bench.js';
import { compareWithGateway } from '../../loadgen/gateway-timings.js';
import { buildGateway } from '../../plugins/index.js';
import { resolveConfig } from '../gateway/config/config-resolve.js';
import { validateConfig } from '../gateway/config/config-validate.js';
import { createGatewayLogger, logDestination } from '../gateway/logs/logger.js';
import type { RequestRecord as GatewayRecord } from '../gateway/records/record.js';
import { parseCommandLine } from '../shared/option-schema.js';
import { BENCH_OPTIONS } from './bench-options.js';
import { benchSettingsFrom } from './bench-settings.js';

export interface DemoReplayOptions {
  readonly simUrl: string;
  /** Where the simulator sends its spans: the replay's own span receiver listens there. */
  readonly spanPort: number;
  readonly prompts: number;
  readonly rate: number;
  readonly write: (text: string) => void;
  /** The format of the gateway's log lines, written to standard error beside the replay's progress. */
  readonly logFormat: 'json' | 'pretty';
}

export async function replayThroughGateway(options: DemoReplayOptions): Promise<void> {
  const config = await resolveConfig(
    validateConfig({
      upstreams: [{ name: 'sim', baseUrl: `${options.simUrl}/v1`, keyless: true }],
    }),
    {},
  );
  // Errors only: the gateway's warnings here would be about the demo's own deliberate setup (a keyless simulator),
  // and its log goes to standard error so the story on standard output stays text.
  const logger = createGatewayLogger('error', logDestination(2), options.logFormat);
  const gatewayRecords: GatewayRecord[] = [];
  const gateway = await buildGateway(config, {
    logger,
    onRecord: (record) => gatewayRecords.push(record),
  });
  await gateway.app.listen({ host: '127.0.0.1', port: 0 });
  const url = `http://127.0.0.1:${(gateway.app.server.address() as AddressInfo).port}`;
  try {
    // The same defaults as `tokenmeter bench`, from its own flag list.
    const argv = [
      '--base-url',
      url,
      '--num-prompts',
      String(options.prompts),
      '--request-rate',
      String(options.rate),
      '--span-receiver-port',
      String(options.spanPort),
      // The gateway's own /metrics are not the server's: the simulator's page has vLLM's names.
      '--server-metrics-url',
      `${options.simUrl}/metrics`,
    ];
    const settings = benchSettingsFrom(
      parseCommandLine('bench', BENCH_OPTIONS, argv, {}).options,
      [],
      {},
      'demo',
    );
    options.write(
      `\nGateway on ${url} in front of the simulator. Replaying ${options.prompts} prompts of the bundled ShareGPT-format ` +
        `sample through it at ${options.rate} req/s (Poisson arrivals):\n\n`,
    );
    const result = await runBench({
      settings,
      model: 'tokenmeter/sim-7b',
      recordsPath: null,
      signal: new AbortController().signal,
      progressStream: process.stderr,
      gatewayRecords,
    });
    const comparison = compareWithGateway(
      result.records,
      gatewayRecords,
      settings.requestIdPrefix,
      settings.metricPercentiles,
    );
    options.write(
      comparison === undefined
        ? loadgenSummaryFor(result, settings)
        : formatBenchReport(result, settings, comparison),
    );
    options.write(
      '\nSame run from the command line: tokenmeter sim --otlp-traces-endpoint http://127.0.0.1:4318/v1/traces & ' +
        'tokenmeter serve --upstream http://127.0.0.1:8000/v1 --records gw.jsonl & ' +
        `tokenmeter bench --base-url http://127.0.0.1:8080 --num-prompts ${options.prompts} --request-rate ${options.rate} ` +
        '--gateway-records gw.jsonl --span-receiver-port 4318 --server-metrics-url http://127.0.0.1:8000/metrics\n',
    );
  } finally {
    await gateway.app.close();
  }
}
