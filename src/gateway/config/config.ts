// The gateway's configuration as users write it (tokenmeter.config.json, with serve's flags laid over it): one
// schema of the document, nested as the file is, whose every field has its key, type, default, help line and
// check; the types the rest of the gateway reads are derived from it, and docs/configuration.md's field tables are
// held to it by a test. The checks across fields live in config-validate.ts, key and file resolution in
// config-resolve.ts.
import { isJsonObject } from '../../shared/json-object.js';
import {
  booleanField,
  checkedField,
  type DocValues,
  listField,
  mapField,
  numberField,
  required,
  sectionField,
  stringField,
} from '../../shared/option-schema.js';
import { DEFAULT_RECEIVER_MAX_BODY_BYTES } from '../../tracing/receiver/span-receiver.js';
import { isCurrencyCode } from './model-prices.js';

// The server's exporter batches: OpenTelemetry's BatchSpanProcessor sends every 5 s by default
// (OTEL_BSP_SCHEDULE_DELAY), so a span can come up to 5 s after its request ended; 1 s more covers the export.
export const DEFAULT_SPAN_WAIT_MS = 6000;
export const DEFAULT_MAX_WAITING_RECORDS = 10_000;

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 8080;
export const DEFAULT_TIMEOUTS = Object.freeze({
  connectMs: 10_000,
  headersMs: 300_000,
  idleMs: 120_000,
  totalMs: 1_800_000,
});
export const DEFAULT_CLIENT_LIMITS = Object.freeze({
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

const got = (value: unknown): string => `(got ${JSON.stringify(value)})`;
const isPort = (v: number): string | undefined =>
  Number.isInteger(v) && v <= 65535 ? undefined : 'must be an integer from 0 to 65535';
const isCount = (v: unknown): string | undefined =>
  Number.isInteger(v) && (v as number) > 0 ? undefined : `must be a positive whole number ${got(v)}`;
const isMs = (v: unknown): string | undefined =>
  typeof v === 'number' && v > 0 ? undefined : `must be a positive number of milliseconds ${got(v)}`;
const isText = (message: string) => (v: unknown) => (typeof v === 'string' && v !== '' ? undefined : message);
const countField = checkedField<number>();

const UPSTREAMS_NEEDED =
  'must list at least one upstream ({"name": "vllm", "baseUrl": "http://127.0.0.1:8000/v1"})';
const NAME = 'must be 1-64 letters, digits, dots, dashes or underscores';
const MIRROR_MODEL = 'must be the model ID the mirror upstream is sent';
const FRACTION = 'must be a number from 0 to 1';
const CURRENCY = 'must be an ISO 4217 currency code such as USD, EUR or CNY';
const PRICE_NEEDED = 'is missing (a price per million tokens)';

/**
 * A route's mirror (src/gateway/exchange/mirrors.ts): a copy of a share of its requests goes to another upstream,
 * whose answer is measured, recorded beside the primary's (same pairId) and discarded; the client only ever sees
 * the primary's answer.
 */
const MIRROR = sectionField(
  'mirror',
  "Also send a share of this route's requests to a second upstream, measured and discarded",
  [
    // Which upstreams exist is known only from the whole document: config-validate.ts checks the name.
    required(
      checkedField<string>()(
        'upstream',
        'The upstream (one of upstreams[]) that gets copies',
        () => undefined,
      ),
      'must name one of the upstreams',
    ),
    required(
      checkedField<string>()('model', 'What the mirror upstream receives in `model`', isText(MIRROR_MODEL)),
      MIRROR_MODEL,
    ),
    required(
      checkedField<number>()('fraction', "Share of the route's eligible requests copied, from 0 to 1", (v) =>
        typeof v === 'number' && v >= 0 && v <= 1 ? undefined : `${FRACTION} ${got(v)}`,
      ),
      FRACTION,
    ),
    booleanField('includeSideEffects', 'Also copy requests that may act beyond answering (mirrors.ts)', {
      default: false,
    }),
    countField(
      'maxConcurrent',
      'Copies in flight at once for this route; one beyond it is not mirrored',
      isCount,
      {
        default: DEFAULT_MIRROR_MAX_CONCURRENT,
      },
    ),
  ],
  { shape: 'an object with upstream, model and fraction' },
);

const MODEL_FIELDS = [
  required(stringField('alias', 'The name clients send'), 'is missing'),
  required(stringField('id', 'What the upstream receives'), 'is missing'),
  MIRROR,
] as const;

const MODEL = checkedField<string | DocValues<typeof MODEL_FIELDS>>()(
  'model',
  'A model name, or an alias clients send and the id the upstream receives',
  (m) =>
    (typeof m === 'string' && m !== '') ||
    (isJsonObject(m) && typeof m['alias'] === 'string' && typeof m['id'] === 'string')
      ? undefined
      : 'must be a model name or {"alias": "...", "id": "..."}',
  { fields: MODEL_FIELDS },
);

const PRICE = sectionField(
  'price',
  'The price of one model',
  [
    required(numberField('inputPerMillion', 'Price of one million prompt tokens'), PRICE_NEEDED),
    required(numberField('outputPerMillion', 'Price of one million generated tokens'), PRICE_NEEDED),
    numberField(
      'cachedInputPerMillion',
      "One million prompt tokens read from the upstream's cache; default: input",
    ),
    required(
      checkedField<string>()('currency', 'ISO 4217 code, upper case (USD, EUR, CNY)', (v) => {
        if (typeof v === 'string' && isCurrencyCode(v)) return undefined;
        const upper = typeof v === 'string' ? v.toUpperCase() : '';
        return `${CURRENCY} ${got(v)}${isCurrencyCode(upper) ? ` (did you mean '${upper}'?)` : ''}`;
      }),
      CURRENCY,
    ),
  ],
  { shape: 'an object with inputPerMillion, outputPerMillion and currency' },
);

const msField = checkedField<number>();
const TIMEOUTS = sectionField('timeouts', 'Bounds on each request to this upstream', [
  msField('connectMs', 'TCP (and TLS) connection set-up', isMs, { default: DEFAULT_TIMEOUTS.connectMs }),
  msField(
    'headersMs',
    "From sending the request to the upstream's response headers (a non-streamed answer whole)",
    isMs,
    {
      default: DEFAULT_TIMEOUTS.headersMs,
    },
  ),
  msField('idleMs', 'Longest silence between two body chunks (a long prefill under load sits here)', isMs, {
    default: DEFAULT_TIMEOUTS.idleMs,
  }),
  msField('totalMs', 'Whole request, first byte in to last byte out', isMs, {
    default: DEFAULT_TIMEOUTS.totalMs,
  }),
]);

const UPSTREAM = sectionField(
  'upstream',
  'One upstream',
  [
    required(
      checkedField<string>()('name', 'Its name in records, metrics and messages; unique', (v) =>
        typeof v === 'string' && /^[\w.-]{1,64}$/.test(v) ? undefined : NAME,
      ),
      NAME,
    ),
    required(
      checkedField<string>()('baseUrl', 'Any shape of the API base URL', (v) =>
        typeof v === 'string' ? undefined : 'must be a URL string',
      ),
      'must be a URL string',
    ),
    stringField('keyEnv', 'Environment variable holding the upstream key'),
    stringField('keyFile', 'File holding the upstream key (trailing whitespace ignored)'),
    stringField('key', 'The key itself: discouraged (it ends up in backups); prefer keyEnv or keyFile'),
    booleanField('keyless', 'Declares that this upstream takes no key (a local vLLM without --api-key)', {
      default: false,
    }),
    mapField(
      'headers',
      'Extra headers sent with every request to this upstream',
      checkedField<string>()('header', 'Its value', (v) =>
        typeof v === 'string' ? undefined : 'must be a string',
      ),
      { shape: 'an object of header names to string values' },
    ),
    TIMEOUTS,
    stringField('caFile', "PEM file of CA certificates trusted for this upstream besides the system's"),
    numberField('maxConnections', 'Maximum connections to this upstream; 0 = unlimited', { default: 0 }),
    listField('models', 'The models this upstream serves', MODEL),
    // Each request's record gets its cost, and tokenmeter_cost_total counts it; models without a price get none.
    mapField(
      'prices',
      "Prices by the model ID this upstream receives (an alias's `id`, not the alias)",
      PRICE,
      {
        shape: 'an object of model IDs to prices',
      },
    ),
    booleanField('default', 'Requests for models no upstream lists go here', { default: false }),
  ],
  { shape: 'an object with at least name and baseUrl' },
);

const CLIENT_LIMITS = sectionField('clientLimits', 'Bounds on what a client controls besides its body size', [
  countField(
    'headersTimeoutMs',
    'A client must send its request headers within this, or gets 408 (slowloris)',
    isCount,
    {
      default: DEFAULT_CLIENT_LIMITS.headersTimeoutMs,
    },
  ),
  // The answer's own duration is not bounded by it: long generations are governed by the upstream timeouts.
  countField(
    'requestTimeoutMs',
    'A client must send its whole request, headers and body, within this',
    isCount,
    {
      default: DEFAULT_CLIENT_LIMITS.requestTimeoutMs,
    },
  ),
  countField('maxConnections', 'Client connections open at once; further ones are refused', isCount, {
    default: DEFAULT_CLIENT_LIMITS.maxConnections,
  }),
  countField('keepAliveTimeoutMs', 'An idle kept-alive client connection is closed after this', isCount, {
    default: DEFAULT_CLIENT_LIMITS.keepAliveTimeoutMs,
  }),
]);

const SPAN_RECEIVER = sectionField(
  'spanReceiver',
  "The built-in span receiver (docs/tracing-receiver.md), on the metrics port: records wait for servers' spans",
  [
    numberField('waitMs', "How long a finished request's record waits for its server's span", {
      default: DEFAULT_SPAN_WAIT_MS,
    }),
    numberField(
      'maxWaitingRecords',
      'Records waiting at once; past it the oldest is written without waiting',
      {
        default: DEFAULT_MAX_WAITING_RECORDS,
      },
    ),
    numberField('maxBodyBytes', 'Largest export taken, in bytes, before and after gzip inflation', {
      default: DEFAULT_RECEIVER_MAX_BODY_BYTES,
    }),
    stringField('forwardUrl', "A collector's OTLP/HTTP traces URL: every export is passed on to it", {
      check: (v: string) =>
        /^https?:\/\/[^/]/.test(v)
          ? undefined
          : `must be an http(s) URL such as http://collector:4318/v1/traces (got ${v})`,
    }),
  ],
  { shape: 'an object ({} turns the receiver on with its defaults)' },
);

const GATEWAY_FIELDS = [
  stringField('host', 'Address to listen on', { default: DEFAULT_HOST }),
  numberField('port', 'Port to listen on', { default: DEFAULT_PORT, check: isPort }),
  required(
    checkedField<readonly NonNullable<(typeof UPSTREAM)['value']>[]>()(
      'upstreams',
      'One or more upstreams',
      (v) => (Array.isArray(v) && v.length > 0 ? undefined : UPSTREAMS_NEEDED),
      { item: UPSTREAM },
    ),
    UPSTREAMS_NEEDED,
  ),
  checkedField<readonly string[]>()(
    'gatewayKeys',
    'Keys clients must present (plain, or sha256:<hex>); none = open',
    (v) =>
      Array.isArray(v) && v.every((k) => typeof k === 'string' && k !== '')
        ? undefined
        : 'must be an array of non-empty strings (plain keys or sha256:<hex>)',
  ),
  stringField('gatewayKeysEnv', 'Environment variable holding more gateway keys, comma-separated'),
  sectionField('records', 'The records file', [
    stringField('file', 'JSON Lines file, one record per request (appended)'),
    booleanField('gaps', 'Also write every inter-chunk gap of each request', { default: false }),
    // Off by default: bodies hold users' prompts.
    booleanField('bodies', "Also write each request's body (for bench --dataset-name records)", {
      default: false,
    }),
  ]),
  booleanField('injectUsage', 'Ask streamed requests for usage (and hide the extra chunk from the client)', {
    default: DEFAULT_INJECT_USAGE,
  }),
  numberField('maxBodyBytes', 'Largest request body accepted', { default: DEFAULT_MAX_BODY_BYTES }),
  // Time for a load balancer (a Kubernetes endpoint controller) to stop routing here.
  numberField(
    'shutdownDelayMs',
    'After SIGTERM/SIGINT, how long the gateway serves on with /readyz failing',
    {
      default: DEFAULT_SHUTDOWN_DELAY_MS,
    },
  ),
  numberField('shutdownGraceMs', 'Then, how long in-flight requests may run before they are cut', {
    default: DEFAULT_SHUTDOWN_GRACE_MS,
  }),
  CLIENT_LIMITS,
  numberField('metricsMaxModels', 'Most distinct model names used as metric labels; the rest are `other`', {
    default: DEFAULT_METRICS_MAX_MODELS,
  }),
  sectionField('metrics', 'Where /metrics is served, and who may read it', [
    stringField(
      'tokenEnv',
      'Environment variable holding the token /metrics requires (Authorization: Bearer)',
    ),
    numberField('port', 'Serve /metrics on this port instead of the API port', { check: isPort }),
    stringField('host', "Address of the metrics port; default: the gateway's host"),
  ]),
  SPAN_RECEIVER,
  // Unset: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT / OTEL_EXPORTER_OTLP_ENDPOINT, else no export (docs/tracing.md).
  stringField('otlpEndpoint', "An OpenTelemetry collector's OTLP/HTTP base URL: one span per request"),
  checkedField<string>()(
    'logLevel',
    'pino level',
    (v) =>
      (LOG_LEVELS as readonly unknown[]).includes(v) ? undefined : `must be one of ${LOG_LEVELS.join(', ')}`,
    { default: 'info' },
  ),
  checkedField<number | 'auto'>()(
    'workers',
    "Gateway processes (`serve --workers`): a whole number, or 'auto' for one per available CPU",
    (v) =>
      v === 'auto' || (Number.isInteger(v) && (v as number) >= 1)
        ? undefined
        : "must be a whole number of processes (1 or more) or 'auto'",
    { default: 1 },
  ),
] as const;

/** The whole document. */
export const GATEWAY_CONFIG = required(
  sectionField('', "The gateway's configuration", GATEWAY_FIELDS, { shape: 'a JSON object' }),
  'must be a JSON object',
);

export type GatewayConfigInput = DocValues<typeof GATEWAY_FIELDS>;
export type UpstreamInput = NonNullable<(typeof UPSTREAM)['value']>;
export type ModelInput = NonNullable<(typeof MODEL)['value']>;
export type MirrorInput = NonNullable<(typeof MIRROR)['value']>;
export type PriceInput = NonNullable<(typeof PRICE)['value']>;
export type TimeoutsInput = NonNullable<(typeof TIMEOUTS)['value']>;
export type ClientLimitsInput = NonNullable<(typeof CLIENT_LIMITS)['value']>;
export type SpanReceiverInput = NonNullable<(typeof SPAN_RECEIVER)['value']>;
