// Checks a configuration document once at start: against its schema (config.ts) by the shared walker, which names
// the bad field in every message (`upstreams[1].timeouts.idleMs must be a positive number`) with "did you mean"
// for misspelled keys; then the checks that need more than one field.
import { nearestNames } from '../../shared/nearest-names.js';
import { checkField } from '../../shared/option-schema.js';
import { UserFacingError } from '../../shared/user-facing-error.js';
import { GATEWAY_CONFIG, type GatewayConfigInput, type MirrorInput, type UpstreamInput } from './config.js';

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
