// The request body: read as bytes, scanned as it arrives for its top-level members (body-scan.ts), never parsed
// whole. The gateway reads a handful of them (`model`, `stream`, `stream_options`, the tool fields, `store`), each
// from its own bytes; the body goes upstream unchanged unless the model must be renamed (an alias) or usage
// reporting requested, and those two edits are made on the bytes: each top-level `model` value replaced, each
// `stream_options` value replaced by itself with `include_usage: true` merged in, or, for a member the body does
// not have, the member added before the object's closing brace. So no body is ever re-serialized (a long chat
// history would cost its JSON.stringify again on every request), and every member the gateway does not read
// reaches the upstream byte for byte.
//
// Duplicate keys: JSON.parse keeps the last, other parsers the first, so the gateway reads the last (as the
// upstream most likely does) and edits all of them, which leaves no reading under which the upstream sees the
// client's alias or a stream without usage.
import { CLOSE_BRACKET, isJsonSpace, OPEN_BRACKET } from '../../shared/json-bytes.js';
import { isJsonObject, type JsonObject } from '../../shared/json-object.js';
import { type BodyScanner, type MemberSpan, type ObjectShape, scanWhole } from './body-scan.js';
import { GatewayError } from './errors.js';

/** The top-level facts of a body that is one JSON object. */
export interface BodyObject {
  /** The last top-level `model` when it is a string. */
  readonly model: string | undefined;
  readonly stream: boolean;
  /** The last top-level `stream_options` when it is an object. */
  readonly streamOptions: JsonObject | undefined;
  /** A `tools` or `functions` member that offers something: a non-empty array, or any value but null. */
  readonly offersTools: boolean;
  /** `"store": false` (the Responses API's opt-out of storing the answer). */
  readonly storeOff: boolean;
  readonly shape: ObjectShape;
  /** Where each member above lies, by key (escapes decoded), every occurrence in the body's order. */
  readonly spans: ReadonlyMap<ReadKey, readonly MemberSpan[]>;
}

export interface ParsedBody {
  readonly raw: Buffer;
  /** The body's facts, or undefined when it is not one JSON object (forwarded as is). */
  readonly object: BodyObject | undefined;
}

/** The members the gateway reads; every other member is skipped unread. */
const READ_KEYS = ['model', 'stream', 'stream_options', 'tools', 'functions', 'store'] as const;
export type ReadKey = (typeof READ_KEYS)[number];
const READ_KEY_SET: ReadonlySet<string> = new Set(READ_KEYS);
const LONGEST_READ_KEY = Math.max(...READ_KEYS.map((key) => key.length));

/**
 * The largest member value the gateway decodes (a model name, stream_options). Real ones are tens of bytes; the
 * bound keeps a body built to make the gateway parse megabytes in one turn of its loop from doing so.
 */
export const MAX_READ_MEMBER_BYTES = 64 * 1024;

/** The body's facts from its bytes and the scan of them (one scanner per body, every chunk pushed). */
export function parseBody(raw: Buffer, scanned: BodyScanner): ParsedBody {
  const shape = scanned.finish();
  return { raw, object: shape === null ? undefined : bodyObject(raw, shape) };
}

/** A body given whole (a test, a tool): scanned as if it had arrived. */
export function parseBodyBytes(raw: Buffer): ParsedBody {
  return parseBody(raw, scanWhole(raw));
}

function bodyObject(raw: Buffer, shape: ObjectShape): BodyObject {
  const spans = new Map<ReadKey, MemberSpan[]>();
  for (const member of shape.members) {
    const key = readKeyOf(raw, member);
    if (key === undefined) continue;
    const list = spans.get(key);
    if (list === undefined) spans.set(key, [member]);
    else list.push(member);
  }
  const value = (key: ReadKey): unknown => {
    const last = spans.get(key)?.at(-1);
    return last === undefined ? undefined : memberValue(raw, key, last);
  };
  const model = value('model');
  const streamOptions = value('stream_options');
  return {
    model: typeof model === 'string' ? model : undefined,
    stream: value('stream') === true,
    streamOptions: isJsonObject(streamOptions) ? streamOptions : undefined,
    offersTools: offers(raw, spans.get('tools')) || offers(raw, spans.get('functions')),
    storeOff: value('store') === false,
    shape,
    spans,
  };
}

/** The member's key when it is one the gateway reads; undefined for any other. */
function readKeyOf(raw: Buffer, member: MemberSpan): ReadKey | undefined {
  const key = memberKey(raw, member, LONGEST_READ_KEY);
  return key !== undefined && READ_KEY_SET.has(key) ? (key as ReadKey) : undefined;
}

/**
 * A member's key (escapes decoded), or undefined when it is longer than `longest` characters: decoding keys a
 * reader has no use for would let a body of long keys cost the gateway their bytes again.
 */
export function memberKey(raw: Buffer, member: MemberSpan, longest: number): string | undefined {
  // A key spelled with escapes is at most six bytes a character (`\uXXXX`).
  if (member.keyEnd - member.keyStart > longest * 6 + 2) return undefined;
  const inner = raw.toString('utf8', member.keyStart + 1, member.keyEnd - 1);
  if (!inner.includes('\\')) return inner;
  try {
    return JSON.parse(raw.toString('utf8', member.keyStart, member.keyEnd)) as string;
  } catch {
    return undefined;
  }
}

/** A read member's value, decoded; undefined when it is not valid JSON (the upstream will say so). */
function memberValue(raw: Buffer, key: ReadKey, member: MemberSpan): unknown {
  const length = member.valueEnd - member.valueStart;
  if (length > MAX_READ_MEMBER_BYTES) {
    throw new GatewayError(
      'invalid_request_body',
      `the body's "${key}" is ${length} bytes long; the gateway reads at most ${MAX_READ_MEMBER_BYTES} bytes of it`,
    );
  }
  try {
    return JSON.parse(raw.toString('utf8', member.valueStart, member.valueEnd));
  } catch {
    return undefined;
  }
}

/** Whether the last of these members offers tools, read from its first bytes (a tool list is never parsed). */
function offers(raw: Buffer, members: readonly MemberSpan[] | undefined): boolean {
  const last = members?.at(-1);
  if (last === undefined) return false;
  const first = raw[last.valueStart];
  if (first === OPEN_BRACKET) {
    // `[` then, spaces aside, anything but `]`.
    let i = last.valueStart + 1;
    while (i < last.valueEnd && isJsonSpace(raw[i])) i++;
    return raw[i] !== CLOSE_BRACKET;
  }
  return raw.toString('latin1', last.valueStart, last.valueEnd) !== 'null';
}

export function bodyModel(body: ParsedBody | undefined): string | undefined {
  return body?.object?.model;
}

export function bodyStreams(body: ParsedBody | undefined): boolean {
  return body?.object?.stream === true;
}

export interface UpstreamBody {
  readonly bytes: Buffer;
  readonly usageInjected: boolean;
  /** How the bytes were made: `as_sent` (unchanged) or `edited` (members replaced or added on the bytes). */
  readonly made: 'as_sent' | 'edited';
}

/**
 * The bytes to send upstream. `upstreamModel` replaces `model` when it differs (aliases); `injectUsage` adds
 * `stream_options.include_usage` to a streamed request that did not ask for it (the caller then removes the
 * usage-only chunk from what the client receives).
 */
export function upstreamBody(body: ParsedBody, upstreamModel: string, injectUsage: boolean): UpstreamBody {
  const object = body.object;
  if (object === undefined) return { bytes: body.raw, usageInjected: false, made: 'as_sent' };
  const rename = upstreamModel !== '' && object.model !== upstreamModel;
  const inject = injectUsage && object.stream && object.streamOptions?.['include_usage'] !== true;
  if (!rename && !inject) return { bytes: body.raw, usageInjected: false, made: 'as_sent' };
  const edits: Edit[] = [];
  const added: string[] = [];
  if (rename) setMember(object, 'model', JSON.stringify(upstreamModel), edits, added);
  if (inject) {
    // vLLM honours `continuous_usage_stats` only beside `include_usage`: a client that sent it alone gets no usage,
    // so asking for usage on its behalf must not switch on usage in every chunk it receives.
    const continuous =
      object.streamOptions?.['continuous_usage_stats'] === true ? { continuous_usage_stats: false } : {};
    const merged = JSON.stringify({ ...object.streamOptions, include_usage: true, ...continuous });
    setMember(object, 'stream_options', merged, edits, added);
  }
  return { bytes: edited(body.raw, object.shape, edits, added), usageInjected: inject, made: 'edited' };
}

interface Edit {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

/** Every top-level `key` gets `valueJson`; a body without one gets the member added. */
function setMember(
  object: BodyObject,
  key: ReadKey,
  valueJson: string,
  edits: Edit[],
  added: string[],
): void {
  const members = object.spans.get(key);
  if (members === undefined) {
    added.push(`${JSON.stringify(key)}:${valueJson}`);
    return;
  }
  for (const m of members) edits.push({ start: m.valueStart, end: m.valueEnd, text: valueJson });
}

function edited(raw: Buffer, shape: ObjectShape, edits: Edit[], added: readonly string[]): Buffer {
  edits.sort((a, b) => a.start - b.start);
  const parts: Buffer[] = [];
  let from = 0;
  for (const edit of edits) {
    parts.push(raw.subarray(from, edit.start), Buffer.from(edit.text, 'utf8'));
    from = edit.end;
  }
  if (added.length > 0) {
    // A member before the added ones needs a comma; `{}` has none.
    const lead = shape.members.length > 0 ? ',' : '';
    parts.push(raw.subarray(from, shape.closeAt), Buffer.from(lead + added.join(','), 'utf8'));
    from = shape.closeAt;
  }
  parts.push(raw.subarray(from));
  return Buffer.concat(parts);
}
