// Checks a parsed configuration object field by field, once at start, and names the bad field in every message
// (`upstreams[1].timeouts.idleMs must be a positive number`), with "did you mean" for misspelled keys.
import { isJsonObject } from '../../shared/json-object.js';
import { nearestNames } from '../../shared/nearest-names.js';
import { UserFacingError } from '../../shared/user-facing-error.js';
import { type GatewayConfigInput, LOG_LEVELS } from './config.js';
import { isCurrencyCode } from './model-prices.js';

type Json = Record<string, unknown>;

const TOP_KEYS = [
  'host',
  'port',
  'upstreams',
  'gatewayKeys',
  'gatewayKeysEnv',
  'records',
  'injectUsage',
  'maxBodyBytes',
  'shutdownDelayMs',
  'shutdownGraceMs',
  'clientLimits',
  'metricsMaxModels',
  'metrics',
  'spanReceiver',
  'otlpEndpoint',
  'logLevel',
  'workers',
];
const UPSTREAM_KEYS = [
  'name',
  'baseUrl',
  'keyEnv',
  'keyFile',
  'key',
  'keyless',
  'headers',
  'timeouts',
  'caFile',
  'maxConnections',
  'models',
  'prices',
  'default',
];
const TIMEOUT_KEYS = ['connectMs', 'headersMs', 'idleMs', 'totalMs'];
const PRICE_KEYS = ['inputPerMillion', 'outputPerMillion', 'cachedInputPerMillion', 'currency'];
const MODEL_KEYS = ['alias', 'id', 'mirror'];
const MIRROR_KEYS = ['upstream', 'model', 'fraction', 'includeSideEffects', 'maxConcurrent'];

function fail(field: string, message: string): never {
  throw new UserFacingError(`config ${field} ${message}`);
}

function checkKeys(value: Json, allowed: readonly string[], field: string): void {
  for (const key of Object.keys(value)) {
    if (allowed.includes(key)) continue;
    const sameLetters = allowed.filter((a) => a.toLowerCase() === key.toLowerCase());
    const near = sameLetters.length > 0 ? sameLetters : nearestNames(key, allowed);
    const hint = near.length > 0 ? ` (did you mean '${near[0]}'?)` : ` (known: ${allowed.join(', ')})`;
    fail(`${field}${field === '' ? '' : '.'}${key}`.replace(/^\./, ''), `is not a known setting${hint}`);
  }
}

function optional(value: Json, key: string, type: 'string' | 'boolean' | 'number', field: string): void {
  const v = value[key];
  if (v === undefined) return;
  if (typeof v !== type) fail(`${field}${key}`, `must be a ${type} (got ${JSON.stringify(v)})`);
  if (type === 'number' && (!Number.isFinite(v) || (v as number) < 0)) {
    fail(`${field}${key}`, `must be a number >= 0 (got ${JSON.stringify(v)})`);
  }
  if (type === 'string' && v === '') fail(`${field}${key}`, 'must not be empty');
}

function checkUpstream(value: unknown, index: number): void {
  const field = `upstreams[${index}].`;
  if (!isJsonObject(value)) fail(`upstreams[${index}]`, 'must be an object with at least name and baseUrl');
  checkKeys(value, UPSTREAM_KEYS, `upstreams[${index}]`);
  if (typeof value['name'] !== 'string' || !/^[\w.-]{1,64}$/.test(value['name'])) {
    fail(`${field}name`, 'must be 1-64 letters, digits, dots, dashes or underscores');
  }
  if (typeof value['baseUrl'] !== 'string') fail(`${field}baseUrl`, 'must be a URL string');
  for (const key of ['keyEnv', 'keyFile', 'key', 'caFile']) optional(value, key, 'string', field);
  for (const key of ['keyless', 'default']) optional(value, key, 'boolean', field);
  optional(value, 'maxConnections', 'number', field);
  const headers = value['headers'];
  if (headers !== undefined) {
    if (!isJsonObject(headers)) fail(`${field}headers`, 'must be an object of header names to string values');
    for (const [name, v] of Object.entries(headers)) {
      if (typeof v !== 'string') fail(`${field}headers.${name}`, 'must be a string');
    }
  }
  const timeouts = value['timeouts'];
  if (timeouts !== undefined) {
    if (!isJsonObject(timeouts)) fail(`${field}timeouts`, 'must be an object');
    checkKeys(timeouts, TIMEOUT_KEYS, `${field}timeouts`);
    for (const key of TIMEOUT_KEYS) {
      const v = timeouts[key];
      if (v !== undefined && (typeof v !== 'number' || !(v > 0))) {
        fail(
          `${field}timeouts.${key}`,
          `must be a positive number of milliseconds (got ${JSON.stringify(v)})`,
        );
      }
    }
  }
  const models = value['models'];
  if (models !== undefined) {
    if (!Array.isArray(models)) fail(`${field}models`, 'must be an array');
    models.forEach((m: unknown, i) => {
      if (typeof m === 'string' && m !== '') return;
      if (isJsonObject(m) && typeof m['alias'] === 'string' && typeof m['id'] === 'string') {
        checkKeys(m, MODEL_KEYS, `${field}models[${i}]`);
        return;
      }
      fail(`${field}models[${i}]`, 'must be a model name or {"alias": "...", "id": "..."}');
    });
  }
}

function checkPrice(price: unknown, field: string): void {
  if (!isJsonObject(price))
    fail(field, 'must be an object with inputPerMillion, outputPerMillion and currency');
  checkKeys(price, PRICE_KEYS, field);
  for (const key of ['inputPerMillion', 'outputPerMillion']) {
    if (price[key] === undefined) fail(`${field}.${key}`, 'is missing (a price per million tokens)');
    optional(price, key, 'number', `${field}.`);
  }
  optional(price, 'cachedInputPerMillion', 'number', `${field}.`);
  const currency = price['currency'];
  if (typeof currency !== 'string' || !isCurrencyCode(currency)) {
    const upper = typeof currency === 'string' ? currency.toUpperCase() : '';
    const hint = isCurrencyCode(upper) ? ` (did you mean '${upper}'?)` : '';
    fail(
      `${field}.currency`,
      `must be an ISO 4217 currency code such as USD, EUR or CNY (got ${JSON.stringify(currency)})${hint}`,
    );
  }
}

/**
 * Prices are keyed by the model ID the upstream receives. When the upstream lists its models and cannot receive
 * others (it is not the default), a key that is none of them would price nothing: it is refused.
 */
function checkPrices(upstream: Json, field: string, receivesAnyModel: boolean): void {
  const prices = upstream['prices'];
  if (prices === undefined) return;
  if (!isJsonObject(prices)) fail(`${field}prices`, 'must be an object of model IDs to prices');
  const models = upstream['models'] as readonly (string | Json)[] | undefined;
  const ids = (models ?? []).map((m) => (typeof m === 'string' ? m : (m['id'] as string)));
  const aliases = (models ?? []).flatMap((m) => (typeof m === 'string' ? [] : [m['alias'] as string]));
  for (const [model, price] of Object.entries(prices)) {
    checkPrice(price, `${field}prices.${model}`);
    if (models === undefined || receivesAnyModel || ids.includes(model)) continue;
    const alias = aliases.indexOf(model);
    const near = alias >= 0 ? [ids[alias] as string] : nearestNames(model, ids);
    const hint = near.length > 0 ? ` (did you mean '${near[0]}'?)` : '';
    fail(
      `${field}prices.${model}`,
      `prices a model this upstream never receives: prices are keyed by the model ID it is sent, one of ${ids.join(', ')}${hint}`,
    );
  }
}

/** A route's mirror names an upstream that exists; its share is a fraction; its bound a positive whole number. */
function checkMirror(mirror: unknown, field: string, upstreamNames: readonly string[]): void {
  if (!isJsonObject(mirror)) fail(field, 'must be an object with upstream, model and fraction');
  checkKeys(mirror, MIRROR_KEYS, field);
  const upstream = mirror['upstream'];
  if (typeof upstream !== 'string' || !upstreamNames.includes(upstream)) {
    const near = typeof upstream === 'string' ? nearestNames(upstream, upstreamNames) : [];
    const hint = near.length > 0 ? ` (did you mean '${near[0]}'?)` : '';
    fail(
      `${field}.upstream`,
      `must name one of the upstreams (${upstreamNames.join(', ')}); got ${JSON.stringify(upstream)}${hint}`,
    );
  }
  if (typeof mirror['model'] !== 'string' || mirror['model'] === '') {
    fail(`${field}.model`, 'must be the model ID the mirror upstream is sent');
  }
  const fraction = mirror['fraction'];
  if (typeof fraction !== 'number' || !(fraction >= 0 && fraction <= 1)) {
    fail(`${field}.fraction`, `must be a number from 0 to 1 (got ${JSON.stringify(fraction)})`);
  }
  optional(mirror, 'includeSideEffects', 'boolean', `${field}.`);
  const bound = mirror['maxConcurrent'];
  if (bound !== undefined && (typeof bound !== 'number' || !Number.isInteger(bound) || bound <= 0)) {
    fail(`${field}.maxConcurrent`, `must be a positive whole number (got ${JSON.stringify(bound)})`);
  }
}

function checkMirrors(upstreams: readonly Json[]): void {
  const names = upstreams.map((u) => u['name'] as string);
  upstreams.forEach((u, i) => {
    const models = (u['models'] ?? []) as readonly unknown[];
    models.forEach((m, j) => {
      if (isJsonObject(m) && m['mirror'] !== undefined) {
        checkMirror(m['mirror'], `upstreams[${i}].models[${j}].mirror`, names);
      }
    });
  });
}

const CLIENT_LIMIT_KEYS = ['headersTimeoutMs', 'requestTimeoutMs', 'maxConnections', 'keepAliveTimeoutMs'];

function checkClientLimits(limits: unknown): void {
  if (limits === undefined) return;
  if (!isJsonObject(limits)) fail('clientLimits', 'must be an object');
  checkKeys(limits, CLIENT_LIMIT_KEYS, 'clientLimits');
  for (const key of CLIENT_LIMIT_KEYS) {
    const v = limits[key];
    if (v !== undefined && (typeof v !== 'number' || !Number.isInteger(v) || v <= 0)) {
      fail(`clientLimits.${key}`, `must be a positive whole number (got ${JSON.stringify(v)})`);
    }
  }
  const headers = limits['headersTimeoutMs'];
  const request = limits['requestTimeoutMs'];
  if (typeof headers === 'number' && typeof request === 'number' && headers > request) {
    fail(
      'clientLimits.headersTimeoutMs',
      'must not exceed clientLimits.requestTimeoutMs: the headers are part of the request',
    );
  }
}

function checkPort(value: Json, field: string): void {
  optional(value, 'port', 'number', field);
  const port = value['port'];
  if (typeof port === 'number' && (!Number.isInteger(port) || port < 0 || port > 65535)) {
    fail(`${field}port`, 'must be an integer from 0 to 65535');
  }
}

function checkSpanReceiver(raw: Json): void {
  const receiver = raw['spanReceiver'];
  if (receiver === undefined) return;
  if (!isJsonObject(receiver))
    fail('spanReceiver', 'must be an object ({} turns the receiver on with its defaults)');
  checkKeys(receiver, ['waitMs', 'maxWaitingRecords', 'maxBodyBytes', 'forwardUrl'], 'spanReceiver');
  for (const key of ['waitMs', 'maxWaitingRecords', 'maxBodyBytes'])
    optional(receiver, key, 'number', 'spanReceiver.');
  optional(receiver, 'forwardUrl', 'string', 'spanReceiver.');
  const forwardUrl = receiver['forwardUrl'];
  if (typeof forwardUrl === 'string' && !/^https?:\/\/[^/]/.test(forwardUrl)) {
    fail(
      'spanReceiver.forwardUrl',
      `must be an http(s) URL such as http://collector:4318/v1/traces (got ${forwardUrl})`,
    );
  }
  // The receiver lives on the metrics port, never on the API port a client reaches.
  if (!isJsonObject(raw['metrics']) || raw['metrics']['port'] === undefined) {
    fail('spanReceiver', 'needs metrics.port: the receiver listens on the metrics port, not the API port');
  }
}

export function validateConfig(raw: unknown): GatewayConfigInput {
  if (!isJsonObject(raw)) fail('', 'must be a JSON object');
  checkKeys(raw, TOP_KEYS, '');
  optional(raw, 'host', 'string', '');
  checkPort(raw, '');
  for (const key of ['maxBodyBytes', 'shutdownDelayMs', 'shutdownGraceMs', 'metricsMaxModels']) {
    optional(raw, key, 'number', '');
  }
  optional(raw, 'injectUsage', 'boolean', '');
  optional(raw, 'gatewayKeysEnv', 'string', '');
  const level = raw['logLevel'];
  if (level !== undefined && !(LOG_LEVELS as readonly unknown[]).includes(level)) {
    fail('logLevel', `must be one of ${LOG_LEVELS.join(', ')}`);
  }
  const workers = raw['workers'];
  if (
    workers !== undefined &&
    workers !== 'auto' &&
    !(Number.isInteger(workers) && (workers as number) >= 1)
  ) {
    fail('workers', "must be a whole number of processes (1 or more) or 'auto'");
  }
  const keys = raw['gatewayKeys'];
  if (keys !== undefined && (!Array.isArray(keys) || keys.some((k) => typeof k !== 'string' || k === ''))) {
    fail('gatewayKeys', 'must be an array of non-empty strings (plain keys or sha256:<hex>)');
  }
  optional(raw, 'otlpEndpoint', 'string', '');
  const records = raw['records'];
  if (records !== undefined) {
    if (!isJsonObject(records)) fail('records', 'must be an object');
    checkKeys(records, ['file', 'gaps', 'bodies'], 'records');
    optional(records, 'file', 'string', 'records.');
    optional(records, 'gaps', 'boolean', 'records.');
    optional(records, 'bodies', 'boolean', 'records.');
  }
  checkClientLimits(raw['clientLimits']);
  const metrics = raw['metrics'];
  if (metrics !== undefined) {
    if (!isJsonObject(metrics)) fail('metrics', 'must be an object');
    checkKeys(metrics, ['tokenEnv', 'port', 'host'], 'metrics');
    optional(metrics, 'tokenEnv', 'string', 'metrics.');
    optional(metrics, 'host', 'string', 'metrics.');
    checkPort(metrics, 'metrics.');
    if (metrics['host'] !== undefined && metrics['port'] === undefined) {
      fail('metrics.host', 'needs metrics.port: the address applies to a metrics port of its own');
    }
  }
  checkSpanReceiver(raw);
  const upstreams = raw['upstreams'];
  if (!Array.isArray(upstreams) || upstreams.length === 0) {
    fail(
      'upstreams',
      'must list at least one upstream ({"name": "vllm", "baseUrl": "http://127.0.0.1:8000/v1"})',
    );
  }
  upstreams.forEach(checkUpstream);
  const names = new Set<string>();
  upstreams.forEach((u: Json, i) => {
    const name = u['name'] as string;
    if (names.has(name)) fail(`upstreams[${i}].name`, `repeats '${name}': names must be unique`);
    names.add(name);
  });
  if (upstreams.filter((u: Json) => u['default'] === true).length > 1) {
    fail('upstreams', 'may mark only one upstream as default');
  }
  checkMirrors(upstreams);
  upstreams.forEach((u: Json, i) => {
    checkPrices(u, `upstreams[${i}].`, u['default'] === true || upstreams.length === 1);
  });
  return raw as unknown as GatewayConfigInput;
}
