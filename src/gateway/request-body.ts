// The request body: JSON bodies are read once as bytes and parsed once, to learn `model` and `stream`; the bytes
// go upstream unchanged unless the model must be renamed (an alias) or usage reporting requested. Those two edits
// are made on the bytes when the body allows it, so the common path never re-serializes a body (a long chat
// history costs its JSON.stringify again on every request otherwise): usage is asked for by inserting
// `"stream_options":{"include_usage":true}` before the object's closing brace when the body has no
// `stream_options`; the model is renamed by replacing the bytes of the one top-level `model` string. Whenever the
// bytes do not allow the edit exactly (a `stream_options` to merge into, a key spelled with escapes, `model`
// twice), the parsed object is re-serialized instead: the same JSON value, written anew.
import { jsonNestsDeeperThan, looksLikeJsonContainer, MAX_JSON_DEPTH } from '../shared/json-depth.js';
import { isJsonObject, type JsonObject } from '../shared/json-object.js';
import { GatewayError } from './errors.js';

export interface ParsedBody {
  readonly raw: Buffer;
  /** The parsed object, or undefined when the body is not a JSON object (forwarded as is). */
  readonly json: JsonObject | undefined;
}

/** Throws the gateway's 400 for a JSON body nested deeper than MAX_JSON_DEPTH, before anything parses it. */
export function parseBody(raw: Buffer): ParsedBody {
  if (raw.length === 0) return { raw, json: undefined };
  if (looksLikeJsonContainer(raw) && jsonNestsDeeperThan(raw, MAX_JSON_DEPTH)) {
    throw new GatewayError(
      'request_too_deep',
      `the JSON body nests objects or arrays more than ${MAX_JSON_DEPTH} levels deep; send a flatter body`,
    );
  }
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
  /** How the bytes were made: `as_sent` (unchanged), `edited` (on the bytes) or `rewritten` (re-serialized). */
  readonly made: 'as_sent' | 'edited' | 'rewritten';
}

/**
 * The bytes to send upstream. `upstreamModel` replaces `model` when it differs (aliases); `injectUsage` adds
 * `stream_options.include_usage` to a streamed request that did not ask for it (the caller then removes the
 * usage-only chunk from what the client receives).
 */
export function upstreamBody(body: ParsedBody, upstreamModel: string, injectUsage: boolean): UpstreamBody {
  const json = body.json;
  if (json === undefined) return { bytes: body.raw, usageInjected: false, made: 'as_sent' };
  const rename = upstreamModel !== '' && json['model'] !== upstreamModel;
  const inject = injectUsage && json['stream'] === true && !clientAskedForUsage(json);
  if (!rename && !inject) return { bytes: body.raw, usageInjected: false, made: 'as_sent' };
  const edited = editedBytes(body.raw, json, rename ? upstreamModel : null, inject);
  if (edited !== null) return { bytes: edited, usageInjected: inject, made: 'edited' };
  const rewritten: Record<string, unknown> = { ...json };
  if (rename) rewritten['model'] = upstreamModel;
  if (inject) {
    const options = json['stream_options'];
    rewritten['stream_options'] = { ...(isJsonObject(options) ? options : {}), include_usage: true };
  }
  return { bytes: Buffer.from(JSON.stringify(rewritten), 'utf8'), usageInjected: inject, made: 'rewritten' };
}

const USAGE_MEMBER = Buffer.from('"stream_options":{"include_usage":true}');
const COMMA = Buffer.from(',');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COLON = 0x3a;
const COMMA_BYTE = 0x2c;
const MODEL_KEY = Buffer.from('"model"');

function isSpace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/** The index just past the string starting at `at` (its opening quote). The body parsed, so it is closed. */
function stringEnd(bytes: Buffer, at: number): number {
  let i = at + 1;
  while (i < bytes.length) {
    const byte = bytes[i];
    if (byte === BACKSLASH) i += 2;
    else if (byte === QUOTE) return i + 1;
    else i++;
  }
  return bytes.length;
}

/** The index just past the JSON value starting at `at` (a valid document: the body parsed). */
function valueEnd(bytes: Buffer, at: number): number {
  const first = bytes[at];
  if (first === QUOTE) return stringEnd(bytes, at);
  if (first !== OPEN_BRACE && first !== OPEN_BRACKET) {
    let i = at;
    while (i < bytes.length) {
      const byte = bytes[i];
      if (byte === COMMA_BYTE || byte === CLOSE_BRACE || byte === CLOSE_BRACKET || isSpace(byte)) break;
      i++;
    }
    return i;
  }
  let depth = 0;
  let i = at;
  while (i < bytes.length) {
    const byte = bytes[i];
    if (byte === QUOTE) {
      i = stringEnd(bytes, i);
      continue;
    }
    if (byte === OPEN_BRACE || byte === OPEN_BRACKET) depth++;
    else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
      depth--;
      if (depth === 0) return i + 1;
    }
    i++;
  }
  return bytes.length;
}

function skipSpace(bytes: Buffer, at: number): number {
  let i = at;
  while (isSpace(bytes[i])) i++;
  return i;
}

/**
 * Where the top-level `model` member's string value lies ([start, end) over its quotes), when the key appears
 * exactly once at the top level spelled plainly; null otherwise (the caller rewrites the body instead).
 */
function modelValueRange(bytes: Buffer): [number, number] | null {
  let i = skipSpace(bytes, 0);
  if (bytes[i] !== OPEN_BRACE) return null;
  i = skipSpace(bytes, i + 1);
  let found: [number, number] | null = null;
  while (i < bytes.length && bytes[i] === QUOTE) {
    const keyEnd = stringEnd(bytes, i);
    const key = bytes.subarray(i, keyEnd);
    const plainModel = key.equals(MODEL_KEY);
    // A key spelled with escapes may still be `model` ("mod\u0065l"): such a body is rewritten, never edited.
    if (!plainModel && key.includes(BACKSLASH)) return null;
    i = skipSpace(bytes, keyEnd);
    if (bytes[i] !== COLON) return null;
    i = skipSpace(bytes, i + 1);
    const end = valueEnd(bytes, i);
    if (plainModel) {
      if (found !== null || bytes[i] !== QUOTE) return null;
      found = [i, end];
    }
    i = skipSpace(bytes, end);
    if (bytes[i] === COMMA_BYTE) i = skipSpace(bytes, i + 1);
    else break;
  }
  return bytes[i] === CLOSE_BRACE ? found : null;
}

/** The body edited on its bytes (see the header), or null when they do not allow it exactly. */
function editedBytes(raw: Buffer, json: JsonObject, model: string | null, inject: boolean): Buffer | null {
  // Merging into a stream_options the client sent takes the parsed object.
  if (inject && Object.hasOwn(json, 'stream_options')) return null;
  const parts: Buffer[] = [];
  let from = 0;
  if (model !== null) {
    const range = modelValueRange(raw);
    if (range === null) return null;
    parts.push(raw.subarray(0, range[0]), Buffer.from(JSON.stringify(model), 'utf8'));
    from = range[1];
  }
  if (inject) {
    let close = raw.length - 1;
    while (close >= 0 && isSpace(raw[close])) close--;
    if (raw[close] !== CLOSE_BRACE) return null;
    parts.push(raw.subarray(from, close));
    // A member before it needs a comma; `{}` has none (the parsed object says which).
    if (Object.keys(json).length > 0) parts.push(COMMA);
    parts.push(USAGE_MEMBER, raw.subarray(close));
  } else {
    parts.push(raw.subarray(from));
  }
  return Buffer.concat(parts);
}
