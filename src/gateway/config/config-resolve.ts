// Turns the validated configuration into what the gateway runs on: base URLs normalized, upstream keys read from
// their variable or file (a missing key is a start-up error naming the variable), CA bundles loaded, gateway
// keys parsed, defaults applied. Done once at start; the result is frozen.
import { readFile } from 'node:fs/promises';
import { UserFacingError } from '../../shared/user-facing-error.js';
import { type GenAiSemconvVersion, genAiSemconvVersion } from '../../tracing/genai-semconv.js';
import { type OtlpExportSettings, resolveOtlpExport } from '../../tracing/otlp-settings.js';
import { DEFAULT_RECEIVER_MAX_BODY_BYTES } from '../../tracing/receiver/span-receiver.js';
import {
  type ClientLimitsInput,
  DEFAULT_CLIENT_LIMITS,
  DEFAULT_HOST,
  DEFAULT_INJECT_USAGE,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_WAITING_RECORDS,
  DEFAULT_METRICS_MAX_MODELS,
  DEFAULT_PORT,
  DEFAULT_SHUTDOWN_DELAY_MS,
  DEFAULT_SHUTDOWN_GRACE_MS,
  DEFAULT_SPAN_WAIT_MS,
  DEFAULT_TIMEOUTS,
  type GatewayConfigInput,
  type ModelInput,
  type TimeoutsInput,
  type UpstreamInput,
} from './config.js';
import { type GatewayKey, parseGatewayKey } from './gateway-keys.js';
import type { ModelPrice } from './model-prices.js';
import { normalizeUpstreamBase, type UpstreamBase } from './upstream-url.js';

export interface ResolvedUpstream {
  readonly name: string;
  readonly base: UpstreamBase;
  /** Never logged, never recorded. */
  readonly key: string | null;
  /** Where the key came from, for hints ("check that X holds the key"); null when no key is sent (keyless). */
  readonly keySource: string | null;
  readonly headers: Readonly<Record<string, string>>;
  readonly timeouts: Required<TimeoutsInput>;
  readonly ca: string | null;
  readonly maxConnections: number;
  readonly models: readonly ModelInput[];
  /** By the model ID the upstream receives. */
  readonly prices: ReadonlyMap<string, ModelPrice>;
  readonly isDefault: boolean;
}

export interface ResolvedSpanReceiver {
  readonly waitMs: number;
  readonly maxWaitingRecords: number;
  readonly maxBodyBytes: number;
  readonly forwardUrl: string | null;
}

export interface GatewayConfig {
  readonly host: string;
  readonly port: number;
  readonly upstreams: readonly ResolvedUpstream[];
  readonly gatewayKeys: readonly GatewayKey[];
  readonly recordsFile: string | null;
  readonly recordGaps: boolean;
  readonly recordBodies: boolean;
  readonly injectUsage: boolean;
  readonly maxBodyBytes: number;
  readonly shutdownDelayMs: number;
  readonly shutdownGraceMs: number;
  readonly clientLimits: Required<ClientLimitsInput>;
  readonly metricsMaxModels: number;
  /** Digest of the token /metrics requires (metrics.tokenEnv); null = /metrics is open. */
  readonly metricsToken: GatewayKey | null;
  /** Where /metrics listens when it has its own port (metrics.port); null = on the API port. */
  readonly metricsListen: { readonly host: string; readonly port: number } | null;
  /** The built-in span receiver (spanReceiver), on the metrics port; null = off. */
  readonly spanReceiver: ResolvedSpanReceiver | null;
  readonly logLevel: string;
  /** Span export (otlpEndpoint and the OTEL_* environment): null = off. */
  readonly spanExport: OtlpExportSettings | null;
  /** The GenAI semantic conventions version the spans follow (OTEL_SEMCONV_STABILITY_OPT_IN). */
  readonly genAiSemconv: GenAiSemconvVersion;
  /** Start-up warnings (keyless upstreams, literal keys) for the caller to log. */
  readonly warnings: readonly string[];
}

/** Defaults filled in; a request timeout set below the default headers timeout takes the headers along with it. */
function resolveClientLimits(input: ClientLimitsInput | undefined): Required<ClientLimitsInput> {
  const requestTimeoutMs = input?.requestTimeoutMs ?? DEFAULT_CLIENT_LIMITS.requestTimeoutMs;
  return {
    requestTimeoutMs,
    headersTimeoutMs:
      input?.headersTimeoutMs ?? Math.min(DEFAULT_CLIENT_LIMITS.headersTimeoutMs, requestTimeoutMs),
    maxConnections: input?.maxConnections ?? DEFAULT_CLIENT_LIMITS.maxConnections,
    keepAliveTimeoutMs: input?.keepAliveTimeoutMs ?? DEFAULT_CLIENT_LIMITS.keepAliveTimeoutMs,
  };
}

async function readText(path: string, field: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as { code?: string }).code ?? 'error';
    throw new UserFacingError(
      `${field}: cannot read '${path}' (${code}); check the path and its permissions`,
    );
  }
}

async function resolveKey(
  u: UpstreamInput,
  field: string,
  env: NodeJS.ProcessEnv,
  warnings: string[],
): Promise<string | null> {
  const sources = [u.keyEnv, u.keyFile, u.key].filter((s) => s !== undefined).length;
  if (sources > 1) throw new UserFacingError(`${field}: set only one of keyEnv, keyFile and key`);
  if (u.keyEnv !== undefined) {
    const value = env[u.keyEnv]?.trim();
    if (!value) {
      throw new UserFacingError(
        `upstream '${u.name}' takes its key from the environment variable ${u.keyEnv}, which is ${
          env[u.keyEnv] === undefined ? 'not set' : 'empty'
        }: export ${u.keyEnv}=<key>, or declare the upstream keyless`,
      );
    }
    return value;
  }
  if (u.keyFile !== undefined) {
    const value = (await readText(u.keyFile, `${field}.keyFile`)).trim();
    if (value === '') throw new UserFacingError(`${field}.keyFile: '${u.keyFile}' is empty`);
    return value;
  }
  if (u.key !== undefined) {
    warnings.push(`upstream '${u.name}': its key is written in the configuration; prefer keyEnv or keyFile`);
    return u.key;
  }
  if (u.keyless === true) {
    warnings.push(
      `upstream '${u.name}' is declared keyless: requests are sent without an Authorization header`,
    );
    return null;
  }
  throw new UserFacingError(
    `${field}: upstream '${u.name}' has no key: set keyEnv (an environment variable name) or keyFile, or "keyless": true`,
  );
}

/** Names where a key came from without showing it: the variable, the file, or the configuration itself. */
function keySource(u: UpstreamInput): string | null {
  if (u.keyEnv !== undefined) return u.keyEnv;
  if (u.keyFile !== undefined) return `the key file ${u.keyFile}`;
  if (u.key !== undefined) return "the upstream's key in the configuration";
  return null;
}

function metricsToken(variable: string | undefined, env: NodeJS.ProcessEnv): GatewayKey | null {
  if (variable === undefined) return null;
  const value = env[variable]?.trim();
  if (!value) {
    throw new UserFacingError(
      `metrics.tokenEnv names ${variable}, which is not set or empty: export ${variable}=<token> or remove the setting`,
    );
  }
  return parseGatewayKey(value, 'metrics.tokenEnv');
}

export async function resolveConfig(
  input: GatewayConfigInput,
  env: NodeJS.ProcessEnv = process.env,
): Promise<GatewayConfig> {
  const warnings: string[] = [];
  const onlyOne = input.upstreams.length === 1;
  const upstreams: ResolvedUpstream[] = [];
  for (const [i, u] of input.upstreams.entries()) {
    const field = `upstreams[${i}]`;
    upstreams.push({
      name: u.name,
      base: normalizeUpstreamBase(u.baseUrl, `${field}.baseUrl`),
      key: await resolveKey(u, field, env, warnings),
      keySource: keySource(u),
      headers: Object.fromEntries(Object.entries(u.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v])),
      timeouts: { ...DEFAULT_TIMEOUTS, ...u.timeouts },
      ca: u.caFile === undefined ? null : await readText(u.caFile, `${field}.caFile`),
      maxConnections: u.maxConnections ?? 0,
      models: u.models ?? [],
      prices: new Map(Object.entries(u.prices ?? {})),
      isDefault: u.default === true || onlyOne,
    });
  }
  const rawKeys = [...(input.gatewayKeys ?? [])];
  if (input.gatewayKeysEnv !== undefined) {
    const fromEnv = env[input.gatewayKeysEnv];
    if (!fromEnv?.trim()) {
      throw new UserFacingError(
        `gatewayKeysEnv names ${input.gatewayKeysEnv}, which is not set or empty: export it or remove the setting`,
      );
    }
    rawKeys.push(
      ...fromEnv
        .split(',')
        .map((k) => k.trim())
        .filter((k) => k !== ''),
    );
  }
  const host = input.host ?? DEFAULT_HOST;
  const metricsPort = input.metrics?.port;
  const config: GatewayConfig = {
    host,
    port: input.port ?? DEFAULT_PORT,
    upstreams,
    gatewayKeys: rawKeys.map((k, i) => parseGatewayKey(k, `gatewayKeys[${i}]`)),
    recordsFile: input.records?.file ?? null,
    recordGaps: input.records?.gaps ?? false,
    recordBodies: input.records?.bodies ?? false,
    injectUsage: input.injectUsage ?? DEFAULT_INJECT_USAGE,
    maxBodyBytes: input.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    shutdownDelayMs: input.shutdownDelayMs ?? DEFAULT_SHUTDOWN_DELAY_MS,
    shutdownGraceMs: input.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS,
    clientLimits: resolveClientLimits(input.clientLimits),
    metricsMaxModels: input.metricsMaxModels ?? DEFAULT_METRICS_MAX_MODELS,
    metricsToken: metricsToken(input.metrics?.tokenEnv, env),
    metricsListen:
      metricsPort === undefined ? null : { host: input.metrics?.host ?? host, port: metricsPort },
    spanReceiver:
      input.spanReceiver === undefined
        ? null
        : {
            waitMs: input.spanReceiver.waitMs ?? DEFAULT_SPAN_WAIT_MS,
            maxWaitingRecords: input.spanReceiver.maxWaitingRecords ?? DEFAULT_MAX_WAITING_RECORDS,
            maxBodyBytes: input.spanReceiver.maxBodyBytes ?? DEFAULT_RECEIVER_MAX_BODY_BYTES,
            forwardUrl: input.spanReceiver.forwardUrl ?? null,
          },
    logLevel: input.logLevel ?? 'info',
    spanExport: resolveOtlpExport(
      {
        endpoint: input.otlpEndpoint,
        endpointKind: 'base',
        envEnables: true,
        defaultServiceName: 'tokenmeter-gateway',
        // The flag is merged into the key before this runs: name both, the user typed one of them.
        source: '--otlp-endpoint (otlpEndpoint)',
      },
      env,
    ),
    genAiSemconv: genAiSemconvVersion(env),
    warnings,
  };
  const exposed = exposedReceiverWarning(config);
  if (exposed !== null) warnings.push(exposed);
  return Object.freeze(config);
}

/** 127.0.0.0/8, ::1 and localhost: only this machine reaches them. */
function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * The span receiver takes exports from whoever reaches the metrics port (which listens on the gateway's host
 * unless metrics.host says otherwise): with no token, on an address other hosts reach, anyone there can post
 * spans into the records. Said at start rather than refused, so that a server on another machine can still export
 * to a gateway on a private network; docs/security.md, "Who is trusted".
 */
function exposedReceiverWarning(config: GatewayConfig): string | null {
  const listen = config.metricsListen;
  if (config.spanReceiver === null || listen === null) return null;
  if (config.metricsToken !== null || isLoopbackHost(listen.host)) return null;
  return `the span receiver listens on ${listen.host} (the metrics port's host) with no metrics.tokenEnv: anyone who reaches it can post spans into the records; set metrics.tokenEnv (exporters then send the token: OTEL_EXPORTER_OTLP_TRACES_HEADERS=Authorization=Bearer%20<token>) or metrics.host 127.0.0.1`;
}
