// What a run measured and from where, saved with its result so `compare` can tell when two runs differ in more
// than the thing being compared: the URL requests went to, backend, model, whether the answers came through a
// tokenmeter gateway (its header, noted per request by the load generator), the tokenmeter version that measured,
// and the host it ran on. Written under the result's `tokenmeter.target` key; vLLM's keys are untouched.

import { isJsonObject, type JsonValue, type JsonValueObject } from '../../src/shared/json-object.js';
import type { RequestRecord } from '../record.js';
import { stringField, tokenmeterSection } from './result-fields.js';

/** Known before the run starts; the gateway is learnt from the answers. */
export interface TargetSettings {
  /** Origin and path only: no user info, no query string (either may carry a key). */
  readonly baseUrl: string;
  readonly tokenmeterVersion: string;
  readonly host: string;
}

export interface RunTarget {
  readonly baseUrl: string | null;
  readonly backend: string | null;
  readonly model: string | null;
  /** The gateway's version(s) seen in the answers; null when every answer came straight from the upstream. */
  readonly gatewayVersion: string | null;
  readonly tokenmeterVersion: string | null;
  readonly host: string | null;
}

/** `origin` + `path` as the result may show them: the query string is dropped (Azure's api-version, or a key). */
export function baseUrlOf(origin: string, path: string): string {
  const query = path.indexOf('?');
  return `${origin}${query < 0 ? path : path.slice(0, query)}`;
}

/** Every gateway version the answers carried, joined; null when none did. */
export function gatewayVersionOf(records: readonly RequestRecord[]): string | null {
  const versions = new Set<string>();
  for (const record of records) if (record.gatewayVersion !== undefined) versions.add(record.gatewayVersion);
  return versions.size === 0 ? null : [...versions].sort().join(', ');
}

export function targetJson(
  settings: TargetSettings,
  backend: string,
  model: string,
  records: readonly RequestRecord[],
): JsonValue {
  return {
    base_url: settings.baseUrl,
    backend,
    model,
    gateway_version: gatewayVersionOf(records),
    tokenmeter_version: settings.tokenmeterVersion,
    host: settings.host,
  };
}

/** The saved target, or null for files written before it was saved (and vLLM's own). */
export function readTarget(json: JsonValueObject): RunTarget | null {
  const target = tokenmeterSection(json)['target'];
  if (!isJsonObject(target)) return null;
  return {
    baseUrl: stringField(target, 'base_url'),
    backend: stringField(target, 'backend'),
    model: stringField(target, 'model'),
    gatewayVersion: stringField(target, 'gateway_version'),
    tokenmeterVersion: stringField(target, 'tokenmeter_version'),
    host: stringField(target, 'host'),
  };
}
