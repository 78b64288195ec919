// `tokenmeter serve` once its configuration is resolved: one gateway process, the supervising primary of
// `--workers N`, or one of its workers (the primary forks this same command). Each listens quietly and says
// where in one line, reopens its records file on SIGHUP and shuts down on SIGINT/SIGTERM. The gateway itself is
// assembled by plugins/index.ts, which this part does not import: the caller hands its builder in.
import { statSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { workerRecordsPath } from '../../measure/record-files.js';
import { endDespiteParkedWrite } from '../../shared/records-writer.js';
import { UsageError } from '../../shared/user-facing-error.js';
import { shownTracesUrl } from '../../tracing/otlp-settings.js';
import { TRACES_PATH } from '../../tracing/receiver/span-receiver.js';
import { toWorker } from '../cluster/messages.js';
import type { GatewayConfig } from '../config/config-resolve.js';
import type { Gateway } from '../context.js';
import { flushLogSync } from '../logs/logger.js';
import type { MetricsSource } from '../metrics/metrics-page.js';

/** plugins/index.ts's buildGateway, loaded by the caller when it is needed. */
export type GatewayBuilder = (
  config: GatewayConfig,
  options: { readonly logger: Logger; readonly metricsSource?: MetricsSource },
) => Promise<Gateway>;

export interface ServeInput {
  readonly config: GatewayConfig;
  /** Gateway processes: 1 is a single process, more a primary and its workers. */
  readonly workers: number;
  readonly logger: Logger;
  readonly loadBuilder: () => Promise<GatewayBuilder>;
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

/** Runs the gateway until it is shut down; resolves with the exit status. */
export async function serve(input: ServeInput): Promise<number> {
  const { config, logger } = input;
  // Loaded here, not at the top: the CLI's other commands (and --help) start without Fastify or the cluster.
  const { isGatewayWorker } = await import('../cluster/worker.js');
  if (isGatewayWorker()) return serveAsWorker(input);
  if (input.workers > 1) {
    checkRecordsPerWorker(config);
    checkSpanReceiverAlone(config);
    // Said once for the gateway here; each worker is built without them.
    for (const warning of config.warnings) logger.warn(warning);
    const { runPrimary } = await import('../cluster/primary.js');
    return runPrimary({ workers: input.workers, logger });
  }
  const buildGateway = await input.loadBuilder();
  const { shutDownOnSignals } = await import('./shutdown.js');
  const gateway = await buildGateway(config, { logger });
  const stopReopening = reopenRecordsOnHangup(gateway);
  announce(logger, await listenQuietly(gateway, logger, config.host, config.port));
  await shutDownOnSignals(gateway);
  stopReopening();
  if (gateway.context.records?.writeStuck === true) endDespiteParkedWrite(() => flushLogSync(logger));
  return 0;
}

/**
 * One worker of `serve --workers N`: the same gateway, with its own records file, /metrics answered with the
 * whole gateway's figures, its listening line passed to the primary (which prints one for the gateway), and the
 * primary's word obeyed as a signal.
 */
async function serveAsWorker(input: ServeInput): Promise<number> {
  const { config, logger } = input;
  const buildGateway = await input.loadBuilder();
  const { shutDownOnSignals } = await import('./shutdown.js');
  const {
    answerRegistryRequests,
    gatewayMetricsSource,
    leavePrimary,
    reportInFlight,
    sendToPrimary,
    workerSlot,
  } = await import('../cluster/worker.js');
  try {
    const recordsFile =
      config.recordsFile === null ? null : workerRecordsPath(config.recordsFile, workerSlot());
    const gateway = await buildGateway(
      { ...config, recordsFile, warnings: [] },
      { logger, metricsSource: gatewayMetricsSource() },
    );
    const inFlight = (): number => gateway.context.state.inFlight;
    answerRegistryRequests(gateway.context.metrics.registry, inFlight);
    const stopReporting = reportInFlight(inFlight);
    const stopReopening = reopenRecordsOnHangup(gateway);
    sendToPrimary({
      type: 'tokenmeter:listening',
      line: await listenQuietly(gateway, logger, config.host, config.port),
    });
    await shutDownOnSignals(gateway);
    stopReporting();
    stopReopening();
    if (gateway.context.records?.writeStuck === true) endDespiteParkedWrite(() => flushLogSync(logger));
    return 0;
  } finally {
    // After its shutdown or a failed start, the process ends when its work does.
    leavePrimary();
  }
}

// SIGHUP reopens the records file, the convention logrotate's `postrotate` relies on (`kill -HUP`): after it
// renamed the file, the gateway lets go of the renamed one and creates the configured path anew. A cluster worker
// also obeys its primary, which passes its own SIGHUP on (src/gateway/cluster/primary.ts). Without a records
// file, SIGHUP is still taken (and said so), so it never ends the gateway as Node's default would.
/** Reopens on SIGHUP and on the primary's word until the returned function is called. */
export function reopenRecordsOnHangup(gateway: Gateway): () => void {
  const reopen = (why: string): void => {
    const { records } = gateway.context;
    if (records === null) {
      gateway.app.log.info({}, `${why}: no records file to reopen`);
      return;
    }
    records.reopen();
    gateway.app.log.info({ file: records.path }, `${why}: reopening the records file ${records.path}`);
  };
  const onHangup = (): void => reopen('SIGHUP');
  const onPrimary = (raw: unknown): void => {
    if (toWorker(raw)?.type === 'tokenmeter:reopen') reopen('SIGHUP (from the primary)');
  };
  process.on('SIGHUP', onHangup);
  if (process.send !== undefined) process.on('message', onPrimary);
  return () => {
    process.off('SIGHUP', onHangup);
    process.off('message', onPrimary);
  };
}
