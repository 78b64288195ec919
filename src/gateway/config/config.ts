// The gateway's configuration: the shape users write (tokenmeter.config.json, flags, environment) and the
// defaults. Validation lives in config-validate.ts, key and file resolution in config-resolve.ts.

export interface TimeoutsInput {
  /** TCP (and TLS) connection set-up. */
  readonly connectMs?: number;
  /** From sending the request to the upstream's response headers (non-streamed answers arrive whole here). */
  readonly headersMs?: number;
  /** Longest silence between two body chunks (a long prefill under load sits here). */
  readonly idleMs?: number;
  /** Whole request, first byte in to last byte out. */
  readonly totalMs?: number;
}

export type ModelInput =
  | string
  | {
      readonly alias: string;
      readonly id: string;
      /** Also send a share of this route's requests to a second upstream, measured and discarded. */
      readonly mirror?: MirrorInput;
    };

/**
 * A route's mirror (src/gateway/exchange/mirrors.ts): a copy of a share of its requests goes to another upstream, whose
 * answer is measured, recorded beside the primary's (same pairId) and discarded; the client only ever sees the
 * primary's answer.
 */
export interface MirrorInput {
  /** Name of the upstream (one of upstreams[]) that receives the copies. */
  readonly upstream: string;
  /** What the mirror upstream receives in `model`. */
  readonly model: string;
  /** Share of the route's eligible requests copied, from 0 to 1. */
  readonly fraction: number;
  /**
   * Also copy requests that may act beyond answering: tool-calling requests and anything but a plain generation
   * or embedding POST (src/gateway/exchange/mirrors.ts). Off by default.
   */
  readonly includeSideEffects?: boolean;
  /** Copies in flight at once for this route; a request arriving beyond it is not mirrored (and counted). */
  readonly maxConcurrent?: number;
}

export interface PriceInput {
  readonly inputPerMillion: number;
  readonly outputPerMillion: number;
  /** Price of one million prompt tokens read from the upstream's prompt cache; default: inputPerMillion. */
  readonly cachedInputPerMillion?: number;
  /** ISO 4217 code, upper case (USD, EUR, CNY). */
  readonly currency: string;
}

export interface UpstreamInput {
  readonly name: string;
  readonly baseUrl: string;
  /** Environment variable holding the upstream key. */
  readonly keyEnv?: string;
  /** File holding the upstream key (trailing whitespace ignored). */
  readonly keyFile?: string;
  /** The key itself: discouraged (it ends up in backups and repositories); prefer keyEnv or keyFile. */
  readonly key?: string;
  /** Declares that this upstream takes no key (a local vLLM started without --api-key). */
  readonly keyless?: boolean;
  readonly headers?: Readonly<Record<string, string>>;
  readonly timeouts?: TimeoutsInput;
  /** PEM file of CA certificates trusted for this upstream, in addition to the system's. */
  readonly caFile?: string;
  /** Maximum connections to this upstream; 0 = unlimited (long streams never queue inside the HTTP client). */
  readonly maxConnections?: number;
  readonly models?: readonly ModelInput[];
  /**
   * Prices by the model ID this upstream receives (an alias's `id`, not the alias): each request's record gets
   * its cost, and tokenmeter_cost_total counts it. Models without a price get no cost.
   */
  readonly prices?: Readonly<Record<string, PriceInput>>;
  /** Requests for models no upstream lists go here. */
  readonly default?: boolean;
}

export interface GatewayConfigInput {
  readonly host?: string;
  readonly port?: number;
  readonly upstreams: readonly UpstreamInput[];
  /** Keys clients must present (plain, or `sha256:<hex>`); none = open gateway. */
  readonly gatewayKeys?: readonly string[];
  /** Environment variable holding more gateway keys, comma-separated. */
  readonly gatewayKeysEnv?: string;
  readonly records?: {
    readonly file?: string;
    /** Also write every inter-chunk gap of each request. */
    readonly gaps?: boolean;
    /**
     * Also write each request's body (capped at 256 KiB) so `tokenmeter bench --dataset-name records` can replay
     * real traffic. Off by default: bodies hold users' prompts.
     */
    readonly bodies?: boolean;
  };
  /** Ask streamed requests for usage (and hide the extra chunk from the client). */
  readonly injectUsage?: boolean;
  readonly maxBodyBytes?: number;
  /**
   * After SIGTERM/SIGINT, /readyz fails at once but the gateway keeps serving, new connections included, for this
   * long before it drains: time for a load balancer (a Kubernetes endpoint controller) to stop routing here.
   */
  readonly shutdownDelayMs?: number;
  /** Then, how long in-flight requests may run before they are cut. */
  readonly shutdownGraceMs?: number;
  /** Bounds on what a client controls besides its body's size: how slowly it may send, how many connections. */
  readonly clientLimits?: ClientLimitsInput;
  readonly metrics?: {
    /**
     * Environment variable holding a token that scrapers must send as `Authorization: Bearer <token>` to read
     * /metrics, for deployments whose API port is public. Unset: /metrics is open, like /healthz.
     */
    readonly tokenEnv?: string;
    /**
     * Serve /metrics on this port instead of the API port, which then has no /metrics at all: for deployments
     * whose API port is public and whose scraper reaches an internal one. Unset: /metrics is on the API port.
     */
    readonly port?: number;
    /** Address of the metrics port. Default: the gateway's host. */
    readonly host?: string;
  };
  /** Most distinct model names used as metric labels; further names are labelled `other`. */
  readonly metricsMaxModels?: number;
  /**
   * The built-in span receiver (docs/tracing-receiver.md): present, the metrics port (metrics.port, required) also
   * takes OTLP/HTTP trace exports at POST /v1/traces, and each record waits for its server's span.
   */
  readonly spanReceiver?: SpanReceiverInput;
  /**
   * An OpenTelemetry collector's OTLP/HTTP base URL (`/v1/traces` is appended): export one span per request.
   * Unset: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT / OTEL_EXPORTER_OTLP_ENDPOINT, else no export (docs/tracing.md).
   */
  readonly otlpEndpoint?: string;
  readonly logLevel?: string;
  /** Gateway processes (`serve --workers`): a whole number, or 'auto' for one per available CPU. Default 1. */
  readonly workers?: number | 'auto';
}

export interface SpanReceiverInput {
  /** How long a finished request's record waits for the server's span before it is written without. */
  readonly waitMs?: number;
  /** Records waiting at once; past it the oldest is written without waiting longer. */
  readonly maxWaitingRecords?: number;
  /** Largest export taken, in bytes, before and after gzip inflation. */
  readonly maxBodyBytes?: number;
  /** A collector's OTLP/HTTP traces URL (http://collector:4318/v1/traces): every export is passed on to it. */
  readonly forwardUrl?: string;
}

// The server's exporter batches: OpenTelemetry's BatchSpanProcessor sends every 5 s by default
// (OTEL_BSP_SCHEDULE_DELAY), so a span can come up to 5 s after its request ended; 1 s more covers the export.
export const DEFAULT_SPAN_WAIT_MS = 6000;
export const DEFAULT_MAX_WAITING_RECORDS = 10_000;

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 8080;
export const DEFAULT_TIMEOUTS: Required<TimeoutsInput> = {
  connectMs: 10_000,
  headersMs: 300_000,
  idleMs: 120_000,
  totalMs: 1_800_000,
};
export interface ClientLimitsInput {
  /** A client must send its request headers within this, or gets 408 and is disconnected (slowloris). */
  readonly headersTimeoutMs?: number;
  /**
   * A client must send its whole request, headers and body, within this (a body trickled a byte at a time is cut).
   * The answer's own duration is not bounded by it: long generations are governed by the upstream timeouts.
   */
  readonly requestTimeoutMs?: number;
  /** Client connections open at once; further ones are refused (counted, and logged at most once a minute). */
  readonly maxConnections?: number;
  /**
   * A kept-alive client connection with no request in progress is closed after this. Never applies while a
   * request or its answer is under way.
   */
  readonly keepAliveTimeoutMs?: number;
}

export const DEFAULT_CLIENT_LIMITS: Required<ClientLimitsInput> = Object.freeze({
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 60_000,
  maxConnections: 10_000,
  // Longer than the 60 s idle timeout of common load balancers in front (AWS ALB, nginx's upstream keepalive):
  // the side that closes an idle connection must be the one in front, or a request sent as the gateway closes
  // the connection is lost.
  keepAliveTimeoutMs: 65_000,
});

/** A mirror slower than its primary keeps running; this bounds how many such copies pile up per route. */
export const DEFAULT_MIRROR_MAX_CONCURRENT = 16;
export const DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024;
export const DEFAULT_SHUTDOWN_DELAY_MS = 0;
export const DEFAULT_SHUTDOWN_GRACE_MS = 30_000;
export const DEFAULT_METRICS_MAX_MODELS = 50;
export const DEFAULT_INJECT_USAGE = true;
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
