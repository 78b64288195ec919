// Where and how spans are exported, resolved once at start from a flag (or config key) and the standard
// OpenTelemetry environment variables (https://opentelemetry.io/docs/specs/otel/protocol/exporter/ and
// .../configuration/sdk-environment-variables/). Export is off unless an endpoint is given. Headers
// (OTEL_EXPORTER_OTLP_[TRACES_]HEADERS) and compression are left to the OTLP exporter, which reads them itself:
// they may hold a collector's key, and this module never sees or logs them.
import { UsageError } from '../shared/user-facing-error.js';

export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json'] as const;
export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];

export interface OtlpExportSettings {
  /** The full traces URL (e.g. http://collector:4318/v1/traces). */
  readonly tracesUrl: string;
  readonly protocol: OtlpProtocol;
  /** The resource's service.name: OTEL_SERVICE_NAME, else the part's own name. */
  readonly serviceName: string;
  /** Spans waiting for export; past it, new spans are dropped and counted (the SDK's default, 2048). */
  readonly maxQueueSize: number;
  readonly maxExportBatchSize: number;
  /** How long a span may wait for a batch to fill before it is sent anyway. */
  readonly scheduledDelayMs: number;
  /** One export's bound (the exporter's HTTP timeout), and the bound on the last flush at shutdown. */
  readonly exportTimeoutMs: number;
}

/** The spec's defaults (OTEL_BSP_* and OTEL_EXPORTER_OTLP_TIMEOUT). */
const DEFAULT_MAX_QUEUE_SIZE = 2048;
const DEFAULT_MAX_EXPORT_BATCH_SIZE = 512;
const DEFAULT_SCHEDULED_DELAY_MS = 5000;
const DEFAULT_EXPORT_TIMEOUT_MS = 10_000;
/** OTLP/HTTP's path for traces under a base endpoint (OTEL_EXPORTER_OTLP_ENDPOINT's rule). */
const TRACES_PATH = 'v1/traces';

export interface OtlpEndpointInput {
  /**
   * From a flag or config key. `base`: a collector's base URL, `/v1/traces` appended as for
   * OTEL_EXPORTER_OTLP_ENDPOINT (`--otlp-endpoint`); `traces`: the traces URL itself, as vLLM's
   * `--otlp-traces-endpoint` and OTEL_EXPORTER_OTLP_TRACES_ENDPOINT.
   */
  readonly endpoint: string | undefined;
  readonly endpointKind: 'base' | 'traces';
  /** Whether OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT alone turns export on (the gateway and bench: yes; the
   *  simulator, like vLLM: no, only its flag does). */
  readonly envEnables: boolean;
  readonly defaultServiceName: string;
  /** What to name in an error about the endpoint (`--otlp-endpoint`, `otlpEndpoint`). */
  readonly source: string;
}

function httpUrl(text: string, source: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`${source} ${JSON.stringify(text)} is not a URL; give http://HOST:PORT (OTLP/HTTP)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(
      `${source} must be an http:// or https:// URL (OTLP/HTTP); ${url.protocol} is not supported`,
    );
  }
  return url;
}

function underBase(base: URL): string {
  const path = base.pathname.endsWith('/') ? base.pathname : `${base.pathname}/`;
  return new URL(`${path}${TRACES_PATH}${base.search}`, base).toString();
}

function positiveInteger(env: NodeJS.ProcessEnv, names: readonly string[], fallback: number): number {
  for (const name of names) {
    const text = env[name]?.trim();
    if (text === undefined || text === '') continue;
    const value = Number(text);
    if (!Number.isInteger(value) || value <= 0) {
      throw new UsageError(`${name} must be a positive whole number; it is ${JSON.stringify(text)}`);
    }
    return value;
  }
  return fallback;
}

function protocolFrom(env: NodeJS.ProcessEnv): OtlpProtocol {
  const name = env['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL']
    ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'
    : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const text = env[name]?.trim();
  // The specification's default for OTLP exporters.
  if (text === undefined || text === '') return 'http/protobuf';
  if ((OTLP_PROTOCOLS as readonly string[]).includes(text)) return text as OtlpProtocol;
  throw new UsageError(
    `${name}=${text} is not supported: tokenmeter exports OTLP over HTTP, ${OTLP_PROTOCOLS.join(' or ')}`,
  );
}

function tracesUrlFrom(input: OtlpEndpointInput, env: NodeJS.ProcessEnv): string | undefined {
  if (input.endpoint !== undefined) {
    const url = httpUrl(input.endpoint, input.source);
    return input.endpointKind === 'base' ? underBase(url) : url.toString();
  }
  if (!input.envEnables) return undefined;
  const traces = env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'];
  if (traces) return httpUrl(traces, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT').toString();
  const base = env['OTEL_EXPORTER_OTLP_ENDPOINT'];
  if (base) return underBase(httpUrl(base, 'OTEL_EXPORTER_OTLP_ENDPOINT'));
  return undefined;
}

/** The traces URL to show in messages: never the credentials a URL may carry. */
export function shownTracesUrl(settings: OtlpExportSettings): string {
  const url = new URL(settings.tracesUrl);
  url.username = '';
  url.password = '';
  return url.toString();
}

/** The export settings, or null when export is off (no endpoint, or OTEL_SDK_DISABLED=true). */
export function resolveOtlpExport(
  input: OtlpEndpointInput,
  env: NodeJS.ProcessEnv,
): OtlpExportSettings | null {
  if (env['OTEL_SDK_DISABLED']?.trim().toLowerCase() === 'true') return null;
  const tracesUrl = tracesUrlFrom(input, env);
  if (tracesUrl === undefined) return null;
  const maxQueueSize = positiveInteger(env, ['OTEL_BSP_MAX_QUEUE_SIZE'], DEFAULT_MAX_QUEUE_SIZE);
  return {
    tracesUrl,
    protocol: protocolFrom(env),
    serviceName: env['OTEL_SERVICE_NAME']?.trim() || input.defaultServiceName,
    maxQueueSize,
    // The SDK lowers a batch larger than the queue to the queue's size; done here so the settings say so.
    maxExportBatchSize: Math.min(
      maxQueueSize,
      positiveInteger(env, ['OTEL_BSP_MAX_EXPORT_BATCH_SIZE'], DEFAULT_MAX_EXPORT_BATCH_SIZE),
    ),
    scheduledDelayMs: positiveInteger(env, ['OTEL_BSP_SCHEDULE_DELAY'], DEFAULT_SCHEDULED_DELAY_MS),
    exportTimeoutMs: positiveInteger(
      env,
      ['OTEL_EXPORTER_OTLP_TRACES_TIMEOUT', 'OTEL_EXPORTER_OTLP_TIMEOUT'],
      DEFAULT_EXPORT_TIMEOUT_MS,
    ),
  };
}
