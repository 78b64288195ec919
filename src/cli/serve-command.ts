// `tokenmeter serve`: the gateway. This file declares its flags and turns them into ServeFlags; what they mean
// over a config file is src/gateway/config/serve-config.ts, and running it (one process, or a primary and its
// workers) is src/gateway/serve/serve.ts.

import { DEFAULT_HOST, DEFAULT_PORT, DEFAULT_SPAN_WAIT_MS, LOG_LEVELS } from '../gateway/config/config.js';
import { resolveConfig } from '../gateway/config/config-resolve.js';
import {
  GATEWAY_KEYS_ENV,
  type ServeFlags,
  serveConfigFrom,
  workerCount,
} from '../gateway/config/serve-config.js';
import {
  createGatewayLogger,
  LOG_FORMAT_OPTION,
  logDestination,
  logFormatFor,
} from '../gateway/logs/logger.js';
import type { OptionSpec, OptionValues, ParsedCommandLine } from '../shared/option-schema.js';
import { defineCommand } from './command.js';

export const SERVE_OPTIONS = [
  {
    name: 'upstream',
    type: 'string',
    valueName: 'URL',
    env: 'TOKENMETER_UPSTREAM',
    help: 'Upstream base URL (with or without /v1)',
  },
  {
    name: 'upstream-key-env',
    type: 'string',
    valueName: 'VAR',
    env: 'TOKENMETER_UPSTREAM_KEY_ENV',
    help: 'Environment variable holding the upstream key (omit for a keyless upstream)',
  },
  {
    name: 'upstream-name',
    type: 'string',
    valueName: 'NAME',
    help: 'Name of the --upstream in records and metrics',
    default: 'upstream',
  },
  {
    name: 'config',
    type: 'string',
    valueName: 'FILE',
    env: 'TOKENMETER_CONFIG',
    help: 'Configuration file (several upstreams, models, timeouts, keys)',
  },
  {
    name: 'host',
    type: 'string',
    valueName: 'HOST',
    env: 'TOKENMETER_HOST',
    default: DEFAULT_HOST,
    help: 'Address to listen on',
  },
  {
    name: 'port',
    type: 'integer',
    valueName: 'PORT',
    env: 'TOKENMETER_PORT',
    default: DEFAULT_PORT,
    min: 0,
    max: 65535,
    help: 'Port to listen on (0 = any free port)',
  },
  {
    name: 'metrics-port',
    type: 'integer',
    valueName: 'PORT',
    env: 'TOKENMETER_METRICS_PORT',
    min: 0,
    max: 65535,
    help: 'Serve /metrics on this port instead of the API port (0 = any free port)',
  },
  {
    name: 'metrics-host',
    type: 'string',
    valueName: 'HOST',
    env: 'TOKENMETER_METRICS_HOST',
    help: 'Address of the metrics port (default: --host)',
  },
  {
    name: 'span-receiver',
    type: 'boolean',
    help: "Take servers' OTLP trace exports at POST /v1/traces on the metrics port (needs --metrics-port) and write each server's segments into its request's record",
  },
  {
    name: 'span-receiver-forward',
    type: 'string',
    valueName: 'URL',
    env: 'TOKENMETER_SPAN_RECEIVER_FORWARD',
    help: "Pass every received export on, unchanged, to this collector's traces URL (implies --span-receiver)",
  },
  {
    name: 'span-receiver-wait-ms',
    type: 'integer',
    valueName: 'MS',
    min: 0,
    help: `How long a finished request's record waits for its server's span (default ${DEFAULT_SPAN_WAIT_MS}; implies --span-receiver)`,
  },
  {
    name: 'records',
    type: 'string',
    valueName: 'FILE',
    env: 'TOKENMETER_RECORDS',
    help: 'Append one JSON line per request to FILE',
  },
  { name: 'record-gaps', type: 'boolean', help: 'Also record every inter-chunk gap of each request' },
  {
    name: 'record-bodies',
    type: 'boolean',
    help: "Also record each request's body (up to 256 KiB) for replay; bodies hold users' prompts",
  },
  {
    name: 'no-usage-injection',
    type: 'boolean',
    help: 'Never add stream_options.include_usage to streamed requests',
  },
  {
    name: 'otlp-endpoint',
    type: 'string',
    valueName: 'URL',
    help: 'Export one OpenTelemetry span per request to this OTLP/HTTP collector (base URL; /v1/traces is appended); also OTEL_EXPORTER_OTLP_ENDPOINT',
  },
  {
    name: 'log-level',
    type: 'string',
    valueName: 'LEVEL',
    env: 'TOKENMETER_LOG_LEVEL',
    choices: LOG_LEVELS,
    default: 'info',
    help: 'Log level',
  },
  {
    name: 'workers',
    type: 'string',
    valueName: 'N|auto',
    env: 'TOKENMETER_WORKERS',
    help: 'Gateway processes sharing the ports (auto = one per available CPU); default 1, a single process',
  },
  LOG_FORMAT_OPTION,
] as const satisfies readonly OptionSpec[];

/** The flags as typed: host, port and log level only when given, so a config file's own values stand. */
function serveFlags({
  options: o,
  given,
}: ParsedCommandLine<OptionValues<typeof SERVE_OPTIONS>>): ServeFlags {
  return {
    config: o['config'],
    upstream: o['upstream'],
    upstreamKeyEnv: o['upstream-key-env'],
    upstreamName: o['upstream-name'],
    host: given.has('host') ? o['host'] : undefined,
    port: given.has('port') ? o['port'] : undefined,
    records: o['records'],
    recordGaps: o['record-gaps'],
    recordBodies: o['record-bodies'],
    metricsPort: o['metrics-port'],
    metricsHost: o['metrics-host'],
    spanReceiver: o['span-receiver'],
    spanReceiverForward: o['span-receiver-forward'],
    spanReceiverWaitMs: o['span-receiver-wait-ms'],
    noUsageInjection: o['no-usage-injection'],
    otlpEndpoint: o['otlp-endpoint'],
    logLevel: given.has('log-level') ? o['log-level'] : undefined,
  };
}

export const serveCommand = defineCommand({
  usage: [
    'serve --upstream http://127.0.0.1:8000/v1 [--upstream-key-env VAR] [--host H] [--port P] [--records FILE]',
    'serve --config tokenmeter.config.json',
    'serve --upstream http://127.0.0.1:8000/v1 --workers auto [--metrics-port 9464]',
  ],
  options: SERVE_OPTIONS,
  details: `Gateway keys: set ${GATEWAY_KEYS_ENV} to a comma-separated list (plain or sha256:<hex>) to require one.\nSee docs/configuration.md for the config file and every default.`,
  async run(commandLine) {
    const input = await serveConfigFrom(serveFlags(commandLine), process.env);
    const workers = workerCount(commandLine.options['workers'] ?? input.workers);
    const config = await resolveConfig(input);
    const logger = createGatewayLogger(
      config.logLevel,
      logDestination(),
      logFormatFor(commandLine.options, process.stdout),
    );
    // Loaded on use: every other command (and --help) starts without Fastify or the cluster.
    const { serve } = await import('../gateway/serve/serve.js');
    return serve({
      config,
      workers,
      logger,
      loadBuilder: async () => (await import('../../plugins/index.js')).buildGateway,
    });
  },
});
