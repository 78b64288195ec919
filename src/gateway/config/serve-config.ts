// `tokenmeter serve`'s configuration: one upstream from flags, or many from a config file, with the flags a user
// typed laid over the file (its listen address, records file, metrics port, span receiver, log level). The CLI
// parses the flags into ServeFlags; this decides what they mean together, and checks the result once.

import { readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { parseJsonText } from '../../shared/json-object.js';
import { UsageError, UserFacingError } from '../../shared/user-facing-error.js';
import type { GatewayConfigInput, UpstreamInput } from './config.js';
import { DEFAULT_HOST, DEFAULT_PORT } from './config.js';
import { validateConfig } from './config-validate.js';

/** The variable whose comma-separated keys a client must present, when the config file names none. */
export const GATEWAY_KEYS_ENV = 'TOKENMETER_GATEWAY_KEYS';

/** serve's flags as typed: a value only where the user gave one (host, port and log level included). */
export interface ServeFlags {
  readonly config?: string | undefined;
  readonly upstream?: string | undefined;
  readonly upstreamKeyEnv?: string | undefined;
  readonly upstreamName?: string | undefined;
  readonly host?: string | undefined;
  readonly port?: number | undefined;
  readonly records?: string | undefined;
  readonly recordGaps?: boolean | undefined;
  readonly recordBodies?: boolean | undefined;
  readonly metricsPort?: number | undefined;
  readonly metricsHost?: string | undefined;
  readonly spanReceiver?: boolean | undefined;
  readonly spanReceiverForward?: string | undefined;
  readonly spanReceiverWaitMs?: number | undefined;
  readonly noUsageInjection?: boolean | undefined;
  readonly otlpEndpoint?: string | undefined;
  readonly logLevel?: string | undefined;
}

/** The span receiver's flags over the file's spanReceiver; any of them turns the receiver on. */
function spanReceiverFrom(flags: ServeFlags, base: GatewayConfigInput): Partial<GatewayConfigInput> {
  const { spanReceiverForward: forwardUrl, spanReceiverWaitMs: waitMs } = flags;
  const on = flags.spanReceiver === true || forwardUrl !== undefined || waitMs !== undefined;
  if (!on) return {};
  return {
    spanReceiver: {
      ...base.spanReceiver,
      ...(forwardUrl === undefined ? {} : { forwardUrl }),
      ...(waitMs === undefined ? {} : { waitMs }),
    },
  };
}

/** The gateway's configuration from the flags and the file they name, checked. */
export async function serveConfigFrom(
  flags: ServeFlags,
  env: NodeJS.ProcessEnv,
): Promise<GatewayConfigInput> {
  if (flags.config === undefined && flags.upstream === undefined) {
    throw new UsageError('give an upstream: --upstream URL (e.g. http://127.0.0.1:8000/v1) or --config FILE');
  }
  const base: GatewayConfigInput =
    flags.config === undefined ? { upstreams: [] } : await loadConfigFile(flags.config);
  const keyEnv = flags.upstreamKeyEnv;
  const upstreams: readonly UpstreamInput[] =
    flags.upstream === undefined
      ? base.upstreams
      : [
          {
            name: flags.upstreamName ?? 'upstream',
            baseUrl: flags.upstream,
            ...(keyEnv === undefined ? { keyless: true } : { keyEnv }),
          },
        ];
  const { metricsPort, metricsHost, records, otlpEndpoint } = flags;
  if (metricsHost !== undefined && metricsPort === undefined && base.metrics?.port === undefined) {
    throw new UsageError(
      '--metrics-host needs --metrics-port: it is the address of a metrics port of its own',
    );
  }
  const merged = {
    ...base,
    upstreams,
    // A flag typed wins over the file; the file wins over a flag's default.
    ...(flags.host !== undefined || base.host === undefined ? { host: flags.host ?? DEFAULT_HOST } : {}),
    ...(flags.port !== undefined || base.port === undefined ? { port: flags.port ?? DEFAULT_PORT } : {}),
    records: {
      ...base.records,
      ...(records === undefined ? {} : { file: records }),
      ...(flags.recordGaps === true ? { gaps: true } : {}),
      ...(flags.recordBodies === true ? { bodies: true } : {}),
    },
    ...(metricsPort !== undefined || metricsHost !== undefined
      ? {
          metrics: {
            ...base.metrics,
            ...(metricsPort === undefined ? {} : { port: metricsPort }),
            ...(metricsHost === undefined ? {} : { host: metricsHost }),
          },
        }
      : {}),
    ...spanReceiverFrom(flags, base),
    ...(flags.noUsageInjection === true ? { injectUsage: false } : {}),
    ...(otlpEndpoint === undefined ? {} : { otlpEndpoint }),
    ...(flags.logLevel === undefined ? {} : { logLevel: flags.logLevel }),
    ...(env[GATEWAY_KEYS_ENV] && base.gatewayKeysEnv === undefined
      ? { gatewayKeysEnv: GATEWAY_KEYS_ENV }
      : {}),
  };
  return validateConfig(merged);
}

// ---- config file ----
// Reads tokenmeter.config.json, with messages that point at the file and the spot of a JSON syntax error.

export async function loadConfigFile(path: string): Promise<GatewayConfigInput> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as { code?: string }).code ?? 'error';
    throw new UserFacingError(`cannot read the config file '${path}' (${code})`);
  }
  let parsed: unknown;
  try {
    parsed = parseJsonText(text);
  } catch (error) {
    throw new UserFacingError(`the config file '${path}' is not valid JSON: ${(error as Error).message}`);
  }
  try {
    return validateConfig(parsed);
  } catch (error) {
    if (error instanceof UserFacingError) throw new UserFacingError(`${path}: ${error.message}`);
    throw error;
  }
}

// ---- worker count ----
// `--workers N|auto` (and the config file's `workers`): how many gateway processes `tokenmeter serve` runs.
// 1, the default, is the plain single process with no primary; more start a supervising primary (primary.ts).

export const DEFAULT_WORKERS = 1;

/** `auto` is the CPUs this process may use (cgroup and affinity limits included), as Node reports them. */
export function workerCount(value: string | number | undefined): number {
  if (value === undefined) return DEFAULT_WORKERS;
  if (value === 'auto') return availableParallelism();
  const count = typeof value === 'number' ? value : Number(value);
  if (!Number.isInteger(count) || count < 1) {
    throw new UsageError(
      `--workers must be a whole number of processes (1 or more) or auto (got '${value}')`,
    );
  }
  return count;
}
