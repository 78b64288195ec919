// The gateway's config document as a schema (every field's key, type, default, help and check, nested as the file
// is), read once at start by the shared walker (src/shared/option-schema.ts), which names the bad field in every
// message (`upstreams[1].timeouts.idleMs must be a positive number`) with "did you mean" for misspelled keys; then
// the checks that need more than one field. The docs' field tables are held to the schema by a test.
import { isJsonObject } from '../../shared/json-object.js';
import { nearestNames } from '../../shared/nearest-names.js';
import { type ConfigField, checkField } from '../../shared/option-schema.js';
import { UserFacingError } from '../../shared/user-facing-error.js';
import { DEFAULT_RECEIVER_MAX_BODY_BYTES } from '../../tracing/receiver/span-receiver.js';
import {
  DEFAULT_CLIENT_LIMITS,
  DEFAULT_HOST,
  DEFAULT_INJECT_USAGE,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_WAITING_RECORDS,
  DEFAULT_METRICS_MAX_MODELS,
  DEFAULT_MIRROR_MAX_CONCURRENT,
  DEFAULT_PORT,
  DEFAULT_SHUTDOWN_DELAY_MS,
  DEFAULT_SHUTDOWN_GRACE_MS,
  DEFAULT_SPAN_WAIT_MS,
  DEFAULT_TIMEOUTS,
  type GatewayConfigInput,
  LOG_LEVELS,
  type MirrorInput,
  type UpstreamInput,
} from './config.js';
import { isCurrencyCode } from './model-prices.js';

const got = (value: unknown): string => `(got ${JSON.stringify(value)})`;
const isPort = (v: number): string | undefined =>
  Number.isInteger(v) && v <= 65535 ? undefined : 'must be an integer from 0 to 65535';
const isCount = (v: unknown): string | undefined =>
  Number.isInteger(v) && (v as number) > 0 ? undefined : `must be a positive whole number ${got(v)}`;
const isMs = (v: unknown): string | undefined =>
  typeof v === 'number' && v > 0 ? undefined : `must be a positive number of milliseconds ${got(v)}`;

const UPSTREAMS_NEEDED =
  'must list at least one upstream ({"name": "vllm", "baseUrl": "http://127.0.0.1:8000/v1"})';
const CURRENCY = 'must be an ISO 4217 currency code such as USD, EUR or CNY';
const FRACTION = 'must be a number from 0 to 1';

const MIRROR: ConfigField = {
  key: 'mirror',
  type: 'section',
  shape: 'an object with upstream, model and fraction',
  help: "Also send a share of this route's requests to a second upstream, measured and discarded",
  fields: [
    // Which upstreams exist is known only from the whole document: checked in checkMirrors.
    { key: 'upstream', type: 'any', help: 'The upstream (one of upstreams[]) that receives the copies' },
    {
      key: 'model',
      type: 'any',
      help: 'What the mirror upstream receives in `model`',
      required: 'must be the model ID the mirror upstream is sent',
      check: (v: unknown) =>
        typeof v === 'string' && v !== '' ? undefined : 'must be the model ID the mirror upstream is sent',
    },
    {
      key: 'fraction',
      type: 'any',
      help: "Share of the route's eligible requests copied, from 0 to 1",
      required: FRACTION,
      check: (v: unknown) =>
        typeof v === 'number' && v >= 0 && v <= 1 ? undefined : `${FRACTION} ${got(v)}`,
    },
    {
      key: 'includeSideEffects',
      type: 'boolean',
      default: false,
      help: 'Also copy requests that may act beyond answering (tool calls, anything but a generation POST)',
    },
    {
      key: 'maxConcurrent',
      type: 'any',
      default: DEFAULT_MIRROR_MAX_CONCURRENT,
      help: 'Copies in flight at once for this route; a request beyond it is not mirrored',
      check: isCount,
    },
  ],
};

const MODEL: ConfigField = {
  key: 'model',
  type: 'any',
  help: 'A model name, or an alias clients send and the id the upstream receives',
  check: (m: unknown) =>
    (typeof m === 'string' && m !== '') ||
    (isJsonObject(m) && typeof m['alias'] === 'string' && typeof m['id'] === 'string')
      ? undefined
      : 'must be a model name or {"alias": "...", "id": "..."}',
  fields: [
    { key: 'alias', type: 'string', help: 'The name clients send' },
    { key: 'id', type: 'string', help: 'What the upstream receives' },
    MIRROR,
  ],
};

const PRICE: ConfigField = {
  key: 'price',
  type: 'section',
  shape: 'an object with inputPerMillion, outputPerMillion and currency',
  help: 'The price of one model',
  fields: [
    {
      key: 'inputPerMillion',
      type: 'number',
      help: 'Price of one million prompt tokens',
      required: 'is missing (a price per million tokens)',
    },
    {
      key: 'outputPerMillion',
      type: 'number',
      help: 'Price of one million generated tokens',
      required: 'is missing (a price per million tokens)',
    },
    {
      key: 'cachedInputPerMillion',
      type: 'number',
      help: "Price of one million prompt tokens read from the upstream's prompt cache; default: inputPerMillion",
    },
    {
      key: 'currency',
      type: 'any',
      help: 'ISO 4217 code, upper case (USD, EUR, CNY)',
      required: CURRENCY,
      check: (v: unknown) => {
        if (typeof v === 'string' && isCurrencyCode(v)) return undefined;
        const upper = typeof v === 'string' ? v.toUpperCase() : '';
        return `${CURRENCY} ${got(v)}${isCurrencyCode(upper) ? ` (did you mean '${upper}'?)` : ''}`;
      },
    },
  ],
};

const TIMEOUTS: readonly ConfigField[] = [
  { key: 'connectMs', help: 'TCP (and TLS) connection set-up' },
  { key: 'headersMs', help: "From sending the request to the upstream's response headers" },
  { key: 'idleMs', help: 'Longest silence between two body chunks' },
  { key: 'totalMs', help: 'Whole request, first byte in to last byte out' },
].map((f) => ({
  ...f,
  type: 'any' as const,
  default: DEFAULT_TIMEOUTS[f.key as keyof typeof DEFAULT_TIMEOUTS],
  check: isMs,
}));

const UPSTREAM: ConfigField = {
  key: 'upstream',
  type: 'section',
  shape: 'an object with at least name and baseUrl',
  help: 'One upstream',
  fields: [
    {
      key: 'name',
      type: 'any',
      help: 'Letters, digits, dots, dashes or underscores; unique',
      required: 'must be 1-64 letters, digits, dots, dashes or underscores',
      check: (v: unknown) =>
        typeof v === 'string' && /^[\w.-]{1,64}$/.test(v)
          ? undefined
          : 'must be 1-64 letters, digits, dots, dashes or underscores',
    },
    {
      key: 'baseUrl',
      type: 'any',
      help: 'Any shape of the API base URL',
      required: 'must be a URL string',
      check: (v: unknown) => (typeof v === 'string' ? undefined : 'must be a URL string'),
    },
    { key: 'keyEnv', type: 'string', help: 'Environment variable holding the upstream key' },
    { key: 'keyFile', type: 'string', help: 'File holding the upstream key (trailing whitespace ignored)' },
    { key: 'key', type: 'string', help: 'The key itself: discouraged; prefer keyEnv or keyFile' },
    { key: 'keyless', type: 'boolean', default: false, help: 'Declares that this upstream takes no key' },
    {
      key: 'headers',
      type: 'map',
      shape: 'an object of header names to string values',
      help: 'Extra headers sent with every request to this upstream',
      item: {
        key: 'header',
        type: 'any',
        help: 'Its value',
        check: (v: unknown) => (typeof v === 'string' ? undefined : 'must be a string'),
      },
    },
    { key: 'timeouts', type: 'section', help: 'Bounds on each request to this upstream', fields: TIMEOUTS },
    { key: 'caFile', type: 'string', help: "PEM file of CA certificates trusted besides the system's" },
    {
      key: 'maxConnections',
      type: 'number',
      default: 0,
      help: 'Maximum connections to this upstream; 0 = unlimited',
    },
    { key: 'models', type: 'list', help: 'The models this upstream serves', item: MODEL },
    {
      key: 'prices',
      type: 'map',
      shape: 'an object of model IDs to prices',
      help: "Prices by the model ID this upstream receives (an alias's `id`, not the alias)",
      item: PRICE,
    },
    {
      key: 'default',
      type: 'boolean',
      default: false,
      help: 'Requests for models no upstream lists go here',
    },
  ],
};

const CLIENT_LIMITS: readonly ConfigField[] = [
  { key: 'headersTimeoutMs', help: 'A client must send its request headers within this, or gets 408' },
  { key: 'requestTimeoutMs', help: 'A client must send its whole request, headers and body, within this' },
  { key: 'maxConnections', help: 'Client connections open at once; further ones are refused' },
  {
    key: 'keepAliveTimeoutMs',
    help: 'A kept-alive client connection with no request under way is closed after this',
  },
].map((f) => ({
  ...f,
  type: 'any' as const,
  default: DEFAULT_CLIENT_LIMITS[f.key as keyof typeof DEFAULT_CLIENT_LIMITS],
  check: isCount,
}));

/** The whole document: tokenmeter.config.json, and serve's flags laid over it. */
export const GATEWAY_CONFIG: ConfigField = {
  key: '',
  type: 'section',
  shape: 'a JSON object',
  required: 'must be a JSON object',
  help: "The gateway's configuration",
  fields: [
    { key: 'host', type: 'string', default: DEFAULT_HOST, help: 'Address to listen on' },
    { key: 'port', type: 'number', default: DEFAULT_PORT, help: 'Port to listen on', check: isPort },
    {
      key: 'upstreams',
      type: 'any',
      help: 'One or more upstreams',
      required: UPSTREAMS_NEEDED,
      check: (v: unknown) => (Array.isArray(v) && v.length > 0 ? undefined : UPSTREAMS_NEEDED),
      item: UPSTREAM,
    },
    {
      key: 'gatewayKeys',
      type: 'any',
      help: 'Keys clients must present (plain, or sha256:<hex>); none = open gateway',
      check: (v: unknown) =>
        Array.isArray(v) && v.every((k) => typeof k === 'string' && k !== '')
          ? undefined
          : 'must be an array of non-empty strings (plain keys or sha256:<hex>)',
    },
    { key: 'gatewayKeysEnv', type: 'string', help: 'Environment variable holding more gateway keys' },
    {
      key: 'records',
      type: 'section',
      help: 'The records file',
      fields: [
        { key: 'file', type: 'string', help: 'JSON Lines file, one record per request (appended)' },
        {
          key: 'gaps',
          type: 'boolean',
          default: false,
          help: 'Also write every inter-chunk gap of each request',
        },
        {
          key: 'bodies',
          type: 'boolean',
          default: false,
          help: "Also write each request's body (users' prompts)",
        },
      ],
    },
    {
      key: 'injectUsage',
      type: 'boolean',
      default: DEFAULT_INJECT_USAGE,
      help: 'Ask streamed requests for usage (and hide the extra chunk from the client)',
    },
    {
      key: 'maxBodyBytes',
      type: 'number',
      default: DEFAULT_MAX_BODY_BYTES,
      help: 'Largest request body accepted',
    },
    {
      key: 'shutdownDelayMs',
      type: 'number',
      default: DEFAULT_SHUTDOWN_DELAY_MS,
      help: 'After SIGTERM/SIGINT, how long the gateway serves on with /readyz failing',
    },
    {
      key: 'shutdownGraceMs',
      type: 'number',
      default: DEFAULT_SHUTDOWN_GRACE_MS,
      help: 'Then, how long in-flight requests may run before they are cut',
    },
    { key: 'clientLimits', type: 'section', help: 'Bounds on what a client controls', fields: CLIENT_LIMITS },
    {
      key: 'metricsMaxModels',
      type: 'number',
      default: DEFAULT_METRICS_MAX_MODELS,
      help: 'Most distinct model names used as metric labels',
    },
    {
      key: 'metrics',
      type: 'section',
      help: 'Where /metrics is served, and who may read it',
      fields: [
        { key: 'tokenEnv', type: 'string', help: 'Environment variable holding the token /metrics requires' },
        {
          key: 'port',
          type: 'number',
          help: 'Serve /metrics on this port instead of the API port',
          check: isPort,
        },
        { key: 'host', type: 'string', help: "Address of the metrics port; default: the gateway's host" },
      ],
    },
    {
      key: 'spanReceiver',
      type: 'section',
      shape: 'an object ({} turns the receiver on with its defaults)',
      help: "The built-in span receiver, on the metrics port: each record waits for its server's span",
      fields: [
        {
          key: 'waitMs',
          type: 'number',
          default: DEFAULT_SPAN_WAIT_MS,
          help: "How long a finished request's record waits for its server's span",
        },
        {
          key: 'maxWaitingRecords',
          type: 'number',
          default: DEFAULT_MAX_WAITING_RECORDS,
          help: 'Records waiting at once; past it the oldest is written without waiting longer',
        },
        {
          key: 'maxBodyBytes',
          type: 'number',
          default: DEFAULT_RECEIVER_MAX_BODY_BYTES,
          help: 'Largest export taken, in bytes, before and after gzip inflation',
        },
        {
          key: 'forwardUrl',
          type: 'string',
          help: "A collector's OTLP/HTTP traces URL: every export is passed on to it",
          check: (v: string) =>
            /^https?:\/\/[^/]/.test(v)
              ? undefined
              : `must be an http(s) URL such as http://collector:4318/v1/traces (got ${v})`,
        },
      ],
    },
    { key: 'otlpEndpoint', type: 'string', help: "An OpenTelemetry collector's OTLP/HTTP base URL" },
    {
      key: 'logLevel',
      type: 'any',
      default: 'info',
      help: 'pino level',
      check: (v: unknown) =>
        (LOG_LEVELS as readonly unknown[]).includes(v)
          ? undefined
          : `must be one of ${LOG_LEVELS.join(', ')}`,
    },
    {
      key: 'workers',
      type: 'any',
      default: 1,
      help: "Gateway processes: a whole number, or 'auto' for one per available CPU",
      check: (v: unknown) =>
        v === 'auto' || (Number.isInteger(v) && (v as number) >= 1)
          ? undefined
          : "must be a whole number of processes (1 or more) or 'auto'",
    },
  ],
};

function fail(field: string, message: string): never {
  throw new UserFacingError(`config ${field} ${message}`);
}

/** " (did you mean 'x'?)" for the nearest of `known`, else nothing. */
function meant(typed: string, known: readonly string[]): string {
  const near = nearestNames(typed, known);
  return near.length > 0 ? ` (did you mean '${near[0]}'?)` : '';
}

/**
 * Prices are keyed by the model ID the upstream receives. When the upstream lists its models and cannot receive
 * others (it is not the default), a key that is none of them would price nothing: it is refused.
 */
function checkPrices(upstream: UpstreamInput, field: string, receivesAnyModel: boolean): void {
  const models = upstream.models;
  if (upstream.prices === undefined || models === undefined || receivesAnyModel) return;
  const ids = models.map((m) => (typeof m === 'string' ? m : m.id));
  const aliases = models.flatMap((m) => (typeof m === 'string' ? [] : [m.alias]));
  for (const model of Object.keys(upstream.prices)) {
    if (ids.includes(model)) continue;
    const alias = aliases.indexOf(model);
    const hint = alias >= 0 ? ` (did you mean '${ids[alias]}'?)` : meant(model, ids);
    fail(
      `${field}prices.${model}`,
      `prices a model this upstream never receives: prices are keyed by the model ID it is sent, one of ${ids.join(', ')}${hint}`,
    );
  }
}

/** A route's mirror names an upstream that exists. */
function checkMirror(mirror: MirrorInput, field: string, upstreamNames: readonly string[]): void {
  const upstream: unknown = mirror.upstream;
  if (typeof upstream === 'string' && upstreamNames.includes(upstream)) return;
  fail(
    `${field}.upstream`,
    `must name one of the upstreams (${upstreamNames.join(', ')}); got ${JSON.stringify(upstream)}${
      typeof upstream === 'string' ? meant(upstream, upstreamNames) : ''
    }`,
  );
}

/** The checks across fields: each field alone has passed the schema. */
function checkAcross(config: GatewayConfigInput): void {
  const limits = config.clientLimits;
  if ((limits?.headersTimeoutMs ?? 0) > (limits?.requestTimeoutMs ?? Number.POSITIVE_INFINITY)) {
    fail(
      'clientLimits.headersTimeoutMs',
      'must not exceed clientLimits.requestTimeoutMs: the headers are part of the request',
    );
  }
  if (config.metrics?.host !== undefined && config.metrics.port === undefined) {
    fail('metrics.host', 'needs metrics.port: the address applies to a metrics port of its own');
  }
  // The receiver lives on the metrics port, never on the API port a client reaches.
  if (config.spanReceiver !== undefined && config.metrics?.port === undefined) {
    fail('spanReceiver', 'needs metrics.port: the receiver listens on the metrics port, not the API port');
  }
  const upstreams = config.upstreams;
  const names = upstreams.map((u) => u.name);
  names.forEach((name, i) => {
    if (names.indexOf(name) < i) fail(`upstreams[${i}].name`, `repeats '${name}': names must be unique`);
  });
  if (upstreams.filter((u) => u.default === true).length > 1) {
    fail('upstreams', 'may mark only one upstream as default');
  }
  upstreams.forEach((u, i) => {
    (u.models ?? []).forEach((m, j) => {
      if (typeof m !== 'string' && m.mirror !== undefined)
        checkMirror(m.mirror, `upstreams[${i}].models[${j}].mirror`, names);
    });
  });
  upstreams.forEach((u, i) => {
    checkPrices(u, `upstreams[${i}].`, u.default === true || upstreams.length === 1);
  });
}

export function validateConfig(raw: unknown): GatewayConfigInput {
  checkField(GATEWAY_CONFIG, raw, '');
  // The schema has checked every field of it, as GatewayConfigInput declares them.
  const config = raw as GatewayConfigInput;
  checkAcross(config);
  return config;
}
