// The request body: JSON bodies are read once as bytes and parsed to learn `model` and `stream`; the bytes go
// upstream unchanged unless the model must be renamed or usage reporting requested, and only then re-serialized.
import { isJsonObject, type JsonObject } from '../shared/json-object.js';

export interface ParsedBody {
  readonly raw: Buffer;
  /** The parsed object, or undefined when the body is not a JSON object (forwarded as is). */
  readonly json: JsonObject | undefined;
}

export function parseBody(raw: Buffer): ParsedBody {
  if (raw.length === 0) return { raw, json: undefined };
  try {
    const value: unknown = JSON.parse(raw.toString('utf8'));
    return { raw, json: isJsonObject(value) ? value : undefined };
  } catch {
    return { raw, json: undefined };
  }
}

export function bodyModel(body: ParsedBody | undefined): string | undefined {
  const model = body?.json?.['model'];
  return typeof model === 'string' ? model : undefined;
}

export function bodyStreams(body: ParsedBody | undefined): boolean {
  return body?.json?.['stream'] === true;
}

function clientAskedForUsage(json: JsonObject): boolean {
  const options = json['stream_options'];
  return isJsonObject(options) && options['include_usage'] === true;
}

export interface UpstreamBody {
  readonly bytes: Buffer;
  readonly usageInjected: boolean;
}

/**
 * The bytes to send upstream. `upstreamModel` replaces `model` when it differs (aliases); `injectUsage` adds
 * `stream_options.include_usage` to a streamed request that did not ask for it (the caller then removes the
 * usage-only chunk from what the client receives).
 */
export function upstreamBody(body: ParsedBody, upstreamModel: string, injectUsage: boolean): UpstreamBody {
  const json = body.json;
  if (json === undefined) return { bytes: body.raw, usageInjected: false };
  const rename = upstreamModel !== '' && json['model'] !== upstreamModel;
  const inject = injectUsage && json['stream'] === true && !clientAskedForUsage(json);
  if (!rename && !inject) return { bytes: body.raw, usageInjected: false };
  const rewritten: Record<string, unknown> = { ...json };
  if (rename) rewritten['model'] = upstreamModel;
  if (inject) {
    const options = json['stream_options'];
    rewritten['stream_options'] = { ...(isJsonObject(options) ? options : {}), include_usage: true };
  }
  return { bytes: Buffer.from(JSON.stringify(rewritten), 'utf8'), usageInjected: inject };
}
