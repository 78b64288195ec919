// `tokenmeter serve`: the gateway. One upstream from flags, or many from a config file; flags override the
// file's listen address and records file.
import { statSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { workerCount } from '../gateway/cluster/worker-count.js';
import type { GatewayConfigInput, UpstreamInput } from '../gateway/config.js';
import { DEFAULT_HOST, DEFAULT_PORT, DEFAULT_SPAN_WAIT_MS, LOG_LEVELS } from '../gateway/config.js';
import { loadConfigFile } from '../gateway/config-file.js';
import { type GatewayConfig, resolveConfig } from '../gateway/config-resolve.js';
import { validateConfig } from '../gateway/config-validate.js';
import type { Gateway } from '../gateway/context.js';
import { createGatewayLogger, logDestination } from '../gateway/logger.js';
import { workerRecordsPath } from '../measure/record-files.js';
import { UsageError } from '../shared/usage-error.js';
import { shownTracesUrl } from '../tracing/otlp-settings.js';
import { TRACES_PATH } from '../tracing/receiver/span-receiver.js';
import type { Command } from './command.js';
import { LOG_FORMAT_OPTION, logFormatFor } from './log-format-option.js';
import type { ParsedCommandLine } from './options.js';

const GATEWAY_KEYS_ENV = 'TOKENMETER_GATEWAY_KEYS';

function str(commandLine: ParsedCommandLine, name: string): string | undefined {
  const value = commandLine.options[name];
  return typeof value === 'string' ? value : undefined;
}

async function configFrom(commandLine: ParsedCommandLine): Promise<GatewayConfigInput> {
  const configPath = str(commandLine, 'config');
  const upstreamUrl = str(commandLine, 'upstream');
  if (configPath === undefined && upstreamUrl === undefined) {
    throw new UsageError('give an upstream: --upstream URL (e.g. http://127.0.0.1:8000/v1) or --config FILE');
  }
  const base: GatewayConfigInput =
    configPath === undefined ? { upstreams: [] } : await loadConfigFile(configPath);
  const keyEnv = str(commandLine, 'upstream-key-env');
  const upstreams: readonly UpstreamInput[] =
    upstreamUrl === undefined
      ? base.upstreams
      : [
          {
            name: str(commandLine, 'upstream-name') ?? 'upstream',
            baseUrl: upstreamUrl,
            ...(keyEnv === undefined ? { keyless: true } : { keyEnv }),
          },
        ];
  const given = commandLine.given;
  const port = commandLine.options['port'];
  const records = str(commandLine, 'records');
  const metricsPort = commandLine.options['metrics-port'];
  const metricsHost = str(commandLine, 'metrics-host');
  const otlpEndpoint = str(commandLine, 'otlp-endpoint');
  if (metricsHost !== undefined && metricsPort === undefined && base.metrics?.port === undefined) {
    throw new UsageError(
      '--metrics-host needs --metrics-port: it is the address of a metrics port of its own',
    );
  }
  const merged = {
    ...base,
    upstreams,
    ...(given.has('host') || base.host === undefined
      ? { host: str(commandLine, 'host') ?? DEFAULT_HOST }
      : {}),
    ...(given.has('port') || base.port === undefined
      ? { port: typeof port === 'number' ? port : DEFAULT_PORT }
      : {}),
    records: {
      ...base.records,
      ...(records === undefined ? {} : { file: records }),
      ...(commandLine.options['record-gaps'] === true ? { gaps: true } : {}),
      ...(commandLine.options['record-bodies'] === true ? { bodies: true } : {}),
    },
    ...(typeof metricsPort === 'number' || metricsHost !== undefined
      ? {
          metrics: {
            ...base.metrics,
            ...(typeof metricsPort === 'number' ? { port: metricsPort } : {}),
            ...(metricsHost === undefined ? {} : { host: metricsHost }),
          },
        }
      : {}),
    ...spanReceiverFrom(commandLine, base),
    ...(commandLine.options['no-usage-injection'] === true ? { injectUsage: false } : {}),
    ...(otlpEndpoint === undefined ? {} : { otlpEndpoint }),
    ...(given.has('log-level') ? { logLevel: str(commandLine, 'log-level') ?? 'info' } : {}),
    ...(process.env[GATEWAY_KEYS_ENV] && base.gatewayKeysEnv === undefined
      ? { gatewayKeysEnv: GATEWAY_KEYS_ENV }
      : {}),
  };
  return validateConfig(merged);
}

/** The span receiver's flags over the file's spanReceiver; any of them turns the receiver on. */
function spanReceiverFrom(
  commandLine: ParsedCommandLine,
  base: GatewayConfigInput,
): Partial<GatewayConfigInput> {
  const forwardUrl = str(commandLine, 'span-receiver-forward');
  const waitMs = commandLine.options['span-receiver-wait-ms'];
  const on =
    commandLine.options['span-receiver'] === true || forwardUrl !== undefined || waitMs !== undefined;
  if (!on) return {};
  return {
    spanReceiver: {
      ...base.spanReceiver,
      ...(forwardUrl === undefined ? {} : { forwardUrl }),
      ...(typeof waitMs === 'number' ? { waitMs } : {}),
    },
  };
}

function hostPart(address: AddressInfo): string {
  return address.family === 'IPv6' ? `[${address.address}]` : address.address;
}

/**
 * Listens, and returns the one line that says where. Fastify logs "Server listening at" for each address and has
 * no switch for it (its maintainers suggest silencing the logger around listen, fastify/help#641): silenced here,
 * and replaced by one line with the upstreams and the metrics port beside the address.
 */
async function listenQuietly(gateway: Gateway, logger: Logger, host: string, port: number): Promise<string> {
  const level = logger.level;
  logger.level = 'silent';
  try {
    await gateway.app.listen({ host, port });
  } finally {
    logger.level = level;
  }
  const { config, state } = gateway.context;
  const address = gateway.app.server.address() as AddressInfo;
  const targets = config.upstreams.map((u) => `'${u.name}' at ${u.base.display}`).join(', ');
  const metrics =
    state.metricsAddress === null
      ? ''
      : `; metrics on http://${hostPart(state.metricsAddress)}:${state.metricsAddress.port}/metrics${
          config.spanReceiver === null ? '' : `, spans (OTLP/HTTP) on ${TRACES_PATH}`
        }`;
  const spans = config.spanExport === null ? '' : `; spans to ${shownTracesUrl(config.spanExport)}`;
  return `tokenmeter gateway listening on http://${hostPart(address)}:${address.port}/v1 -> ${targets}${metrics}${spans}`;
}

/**
 * The listening line is written at info whatever --log-level says, as it was before it became a log line: the
 * address is what a user starts serve to learn. Flushed now, not when the batch fills or its timer runs.
 */
function announce(logger: Logger, line: string): void {
  logger.child({}, { level: 'info' }).info(line);
  logger.flush();
}

/** Several workers cannot share a FIFO or a device the way one process writes it: each needs a file of its own. */
function checkRecordsPerWorker(config: GatewayConfig): void {
  const file = config.recordsFile;
  if (file === null) return;
  let regular = true;
  try {
    regular = statSync(file).isFile();
  } catch {
    // Not there yet: each worker creates its own.
  }
  if (!regular) {
    throw new UsageError(
      `--records ${file} is not a regular file: with --workers each worker writes a file of its own beside it; use --workers 1 to write to a pipe or device`,
    );
  }
}

/**
 * The span receiver joins a span to the request it belongs to in the process that holds that request's record;
 * with workers, an export lands on whichever worker the metrics port hands it to.
 */
function checkSpanReceiverAlone(config: GatewayConfig): void {
  if (config.spanReceiver === null) return;
  throw new UsageError(
    'the span receiver (--span-receiver, spanReceiver) needs a single gateway process: an export reaches whichever worker takes it, not the one holding its request; use --workers 1',
  );
}

export const serveCommand: Command = {
  name: 'serve',
  summary: 'Run the measurement gateway in front of an OpenAI-compatible upstream',
  usage: [
    'serve --upstream http://127.0.0.1:8000/v1 [--upstream-key-env VAR] [--host H] [--port P] [--records FILE]',
    'serve --config tokenmeter.config.json',
    'serve --upstream http://127.0.0.1:8000/v1 --workers auto [--metrics-port 9464]',
  ],
  options: [
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
  ],
  details: `Gateway keys: set ${GATEWAY_KEYS_ENV} to a comma-separated list (plain or sha256:<hex>) to require one.\nSee docs/configuration.md for the config file and every default.`,
  async run(commandLine) {
    const input = await configFrom(commandLine);
    const workers = workerCount(str(commandLine, 'workers') ?? input.workers);
    const config = await resolveConfig(input);
    const logger = createGatewayLogger(
      config.logLevel,
      logDestination(),
      logFormatFor(commandLine.options, process.stdout),
    );
    // Loaded here, not at the top: every other command (and --help) starts without Fastify or the cluster.
    const { isGatewayWorker } = await import('../gateway/cluster/worker.js');
    if (isGatewayWorker()) return serveAsWorker(config, logger);
    if (workers > 1) {
      checkRecordsPerWorker(config);
      checkSpanReceiverAlone(config);
      // Said once for the gateway here; each worker is built without them.
      for (const warning of config.warnings) logger.warn(warning);
      const { runPrimary } = await import('../gateway/cluster/primary.js');
      return runPrimary({ workers, logger });
    }
    const { buildGateway } = await import('../../plugins/index.js');
    const { shutDownOnSignals } = await import('../gateway/shutdown.js');
    const { reopenRecordsOnHangup } = await import('../gateway/records-reopen.js');
    const gateway = await buildGateway(config, { logger });
    const stopReopening = reopenRecordsOnHangup(gateway);
    announce(logger, await listenQuietly(gateway, logger, config.host, config.port));
    await shutDownOnSignals(gateway);
    stopReopening();
    return 0;
  },
};

/**
 * One worker of `serve --workers N`: the same gateway, with its own records file, /metrics answered with the
 * whole gateway's figures, its listening line passed to the primary (which prints one for the gateway), and the
 * primary's word obeyed as a signal.
 */
async function serveAsWorker(config: GatewayConfig, logger: Logger): Promise<number> {
  const { buildGateway } = await import('../../plugins/index.js');
  const { shutDownOnSignals } = await import('../gateway/shutdown.js');
  const { reopenRecordsOnHangup } = await import('../gateway/records-reopen.js');
  const { answerRegistryRequests, gatewayMetricsSource, leavePrimary, sendToPrimary, workerSlot } =
    await import('../gateway/cluster/worker.js');
  try {
    const recordsFile =
      config.recordsFile === null ? null : workerRecordsPath(config.recordsFile, workerSlot());
    const gateway = await buildGateway(
      { ...config, recordsFile, warnings: [] },
      { logger, metricsSource: gatewayMetricsSource() },
    );
    answerRegistryRequests(gateway.context.metrics.registry);
    const stopReopening = reopenRecordsOnHangup(gateway);
    sendToPrimary({
      type: 'tokenmeter:listening',
      line: await listenQuietly(gateway, logger, config.host, config.port),
    });
    await shutDownOnSignals(gateway);
    stopReopening();
    return 0;
  } finally {
    // After its shutdown or a failed start, the process ends when its work does.
    leavePrimary();
  }
}
