// What a request's body says about the session it belongs to, read from the bytes the body scan located
// (body-scan.ts, element-spans.ts) without parsing the body: the session ids some clients put in it
// (Anthropic's `metadata.user_id` as Claude Code writes it, `prompt_cache_key`, `previous_response_id`), hashes
// of its conversation at each message boundary (for prefix chaining: sessions.ts), and the tool results it sends
// back, and the prompt's block structure for traces (prompt-prefixes.ts). No text is kept: a hash is all that
// outlives the request.
//
// The hashes are SHA-256 (native, a few GB/s) over the bytes of the conversation as sent, from its first message
// to the end of message k, after the instructions (`system`, `instructions`) that frame it. A client that sends
// its history byte for byte again, as agents do, gives its next turn a conversation whose hash at the earlier
// turn's length is the earlier turn's whole hash. A client that rewrites earlier messages (moves a cache_control
// mark, re-serializes) does not chain: it needs to send a session id.
import { createHash, type Hash } from 'node:crypto';
import { field, isJsonObject, type JsonObject, parseJsonObject } from '../../shared/json-object.js';
import type { MemberSpan } from '../request-path/body-scan.js';
import { memberKey, type ParsedBody } from '../request-path/request-body.js';
import type { ElementSpans } from './element-spans.js';
import { frameDigest, type PromptPrefix, prefixBoundaries, prefixHash } from './prompt-prefixes.js';

/** Where a protocol keeps its conversation: the Protocol's conversationField. */
export type ConversationField = 'messages' | 'input';

/**
 * The members read here, besides the conversation. Values longer than MAX_HINT_BYTES are not decoded: real ones
 * are ids of tens of bytes.
 */
const FRAME_KEYS: ReadonlySet<string> = new Set(['system', 'instructions']);
/** Tool definitions: part of the prompt (prompt-prefixes.ts), not of the conversation prefix chaining compares. */
const TOOLS_KEY = 'tools';
const HINT_KEYS: ReadonlySet<string> = new Set(['metadata', 'prompt_cache_key', 'previous_response_id']);
const LONGEST_KEY = 'previous_response_id'.length;
const MAX_HINT_BYTES = 4096;

/**
 * The trailing messages parsed to count tool results, in bytes at most: the new part of a turn is its tool
 * results, rarely past a few hundred KB; past this the count is unknown rather than the gateway's loop held.
 */
export const MAX_PARSED_TAIL_BYTES = 1024 * 1024;

/**
 * The most messages one turn may add to its conversation and still be found as the next turn: an answer and the
 * results of its tool calls are a few. Each one more costs a copy of the hash's state (about 5 us).
 */
export const MAX_TURN_GROWTH = 32;

/** Session ids the body carries, as sent (sessions.ts bounds and checks them). */
export interface BodySessionHints {
  /** The session id Claude Code writes into Anthropic's `metadata.user_id`. */
  readonly metadataSession: string | undefined;
  readonly promptCacheKey: string | undefined;
  readonly previousResponseId: string | undefined;
}

/** The conversation's hashes, for prefix chaining. */
export interface ConversationChain {
  /** The hash of the whole conversation. */
  readonly hash: string;
  /**
   * Hashes of the conversation cut after fewer messages, longest first: what an earlier turn of the same session
   * would have hashed to. At most MAX_TURN_GROWTH of them, and only as far back as the scan kept message spans.
   */
  readonly prefixHashes: readonly string[];
}

export interface ConversationFacts extends BodySessionHints {
  /** Messages (or input items) in the conversation; 0 when it has no list of them. */
  readonly length: number;
  /**
   * The conversation's hashes, computed on the first call (a request whose client names its session never pays
   * for them); undefined without messages.
   */
  chain(): ConversationChain | undefined;
  /**
   * Tool results sent after the model's last message in the conversation (OpenAI `role: tool` messages,
   * Anthropic `tool_result` blocks, Responses `*_call_output` items): those answering the previous answer's
   * calls. Null when they could not be counted within MAX_PARSED_TAIL_BYTES or the kept spans.
   */
  readonly toolResults: number | null;
  /**
   * The prompt's boundaries for traces (prompt-prefixes.ts), computed on the first call, in `protocol` (its endpoint
   * family: `chat`, ...); undefined without messages.
   */
  promptPrefixes(protocol: string): PromptPrefix[] | undefined;
}

const NO_HINTS: BodySessionHints = Object.freeze({
  metadataSession: undefined,
  promptCacheKey: undefined,
  previousResponseId: undefined,
});

/** The facts of a body whose conversation is in `field`; undefined when the body is not one JSON object. */
export function conversationFacts(body: ParsedBody, field: ConversationField): ConversationFacts | undefined {
  const object = body.object;
  if (object === undefined) return undefined;
  const raw = body.raw;
  const members = object.shape.members;
  let conversation: ElementSpans | undefined;
  const frames: MemberSpan[] = [];
  let tools: MemberSpan | undefined;
  let hints: Partial<Record<string, MemberSpan>> | undefined;
  for (let i = 0; i < members.length; i++) {
    const member = members[i] as MemberSpan;
    const key = memberKey(raw, member, LONGEST_KEY);
    if (key === undefined) continue;
    if (key === field) conversation = object.shape.elements.get(i);
    else if (FRAME_KEYS.has(key)) frames.push(member);
    else if (key === TOOLS_KEY) tools = member;
    else if (HINT_KEYS.has(key)) {
      hints ??= {};
      hints[key] = member;
    }
  }
  const bodyHints = hints === undefined ? NO_HINTS : readHints(raw, hints);
  if (conversation === undefined || conversation.count === 0) {
    return {
      ...bodyHints,
      length: 0,
      chain: () => undefined,
      toolResults: 0,
      promptPrefixes: () => undefined,
    };
  }
  const spans = conversation;
  const framed = frames.length > 0 || tools !== undefined;
  // One pass of the running hash serves both readers: whichever asks first gets the boundaries of both when it
  // is the chain (the sessions table asks before the record does), its own otherwise.
  let digests: BoundaryDigests | undefined;
  const digestsFor = (withChain: boolean): BoundaryDigests => {
    if (digests === undefined || (withChain && !digests.chain)) {
      const wanted = new Set(prefixBoundaries(spans.count, framed));
      if (withChain) for (const k of chainBoundaries(spans)) wanted.add(k);
      digests = { chain: withChain, at: digestsAt(raw, frames, spans, wanted) };
    }
    return digests;
  };
  let chain: ConversationChain | undefined;
  let prefixes: PromptPrefix[] | undefined;
  return {
    ...bodyHints,
    length: spans.count,
    chain: () => {
      chain ??= chainOf(digestsFor(true).at, spans);
      return chain;
    },
    toolResults: toolResultsAtEnd(raw, spans),
    promptPrefixes: (protocol) => {
      prefixes ??= prefixesOf(raw, protocol, frames, tools, spans, digestsFor(false).at, framed);
      return prefixes;
    },
  };
}

interface BoundaryDigests {
  /** Whether the chain's boundaries are among them. */
  readonly chain: boolean;
  /** The conversation's SHA-256 after k messages, by k. */
  readonly at: ReadonlyMap<number, Buffer>;
}

function readHints(raw: Buffer, hints: Partial<Record<string, MemberSpan>>): BodySessionHints {
  return {
    metadataSession: sessionOfUserId(fieldOf(smallValue(raw, hints['metadata']), 'user_id')),
    promptCacheKey: stringOrUndefined(smallValue(raw, hints['prompt_cache_key'])),
    previousResponseId: stringOrUndefined(smallValue(raw, hints['previous_response_id'])),
  };
}

function smallValue(raw: Buffer, member: MemberSpan | undefined): unknown {
  if (member === undefined || member.valueEnd - member.valueStart > MAX_HINT_BYTES) return undefined;
  try {
    return JSON.parse(raw.toString('utf8', member.valueStart, member.valueEnd));
  } catch {
    return undefined;
  }
}

function fieldOf(value: unknown, key: string): unknown {
  return isJsonObject(value) ? field(value, key) : undefined;
}

function stringOrUndefined(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/**
 * Claude Code's `metadata.user_id`: `user_<hash>_account_<uuid>_session_<uuid>`, or in later versions a JSON
 * object with `session_id`. Any other user id names a user, not a session, and is not read as one.
 */
export function sessionOfUserId(userId: unknown): string | undefined {
  if (typeof userId !== 'string') return undefined;
  const suffix = /_session_([^_]+)$/.exec(userId);
  if (suffix !== null) return suffix[1];
  if (!userId.startsWith('{')) return undefined;
  return stringOrUndefined(fieldOf(parseJsonObject(userId), 'session_id'));
}

/** The boundaries prefix chaining compares: as far back as ConversationChain says, and the whole. */
function chainBoundaries(spans: ElementSpans): number[] {
  const shortest = Math.max(1, spans.oldestKept + 1, spans.count - MAX_TURN_GROWTH);
  const boundaries: number[] = [];
  for (let k = shortest; k <= spans.count; k++) boundaries.push(k);
  return boundaries;
}

/**
 * The conversation's SHA-256 at each wanted boundary whose end is known: the instructions that frame it, a
 * separator, then its first k messages' bytes as sent (k = 0: the frame alone).
 */
function digestsAt(
  raw: Buffer,
  frames: readonly MemberSpan[],
  spans: ElementSpans,
  wanted: ReadonlySet<number>,
): Map<number, Buffer> {
  const running: Hash = createHash('sha256');
  for (const frame of frames) running.update(raw.subarray(frame.valueStart, frame.valueEnd));
  // A separator, so that instructions and messages cannot trade bytes across the boundary and hash alike.
  running.update('\u0000');
  const at = new Map<number, Buffer>();
  const ordered = [...wanted].sort((a, b) => a - b);
  let covered = spans.firstStart;
  for (const k of ordered) {
    const end = k === 0 ? covered : spans.knownEnd(k - 1);
    if (end === undefined) continue;
    // The bytes up to the next wanted boundary go in one native call.
    running.update(raw.subarray(covered, end));
    covered = end;
    at.set(k, k === spans.count ? running.digest() : running.copy().digest());
  }
  return at;
}

/** The whole conversation's hash and its prefixes', longest first, as far back as ConversationChain says. */
function chainOf(digests: ReadonlyMap<number, Buffer>, spans: ElementSpans): ConversationChain {
  const prefixHashes: string[] = [];
  for (const k of chainBoundaries(spans)) {
    if (k === spans.count) continue;
    const digest = digests.get(k);
    if (digest !== undefined) prefixHashes.push(digest.toString('base64'));
  }
  prefixHashes.reverse();
  return { hash: (digests.get(spans.count) as Buffer).toString('base64'), prefixHashes };
}

/** The record's promptPrefixes (prompt-prefixes.ts): bytes count tools, then instructions, then messages. */
function prefixesOf(
  raw: Buffer,
  protocol: string,
  frames: readonly MemberSpan[],
  tools: MemberSpan | undefined,
  spans: ElementSpans,
  digests: ReadonlyMap<number, Buffer>,
  framed: boolean,
): PromptPrefix[] {
  const toolBytes = tools === undefined ? undefined : raw.subarray(tools.valueStart, tools.valueEnd);
  const mixed = frameDigest(protocol, toolBytes);
  let before = toolBytes?.length ?? 0;
  for (const frame of frames) before += frame.valueEnd - frame.valueStart;
  const prefixes: PromptPrefix[] = [];
  for (const k of prefixBoundaries(spans.count, framed)) {
    const digest = digests.get(k);
    if (digest === undefined) continue;
    const end = k === 0 ? spans.firstStart : (spans.knownEnd(k - 1) as number);
    prefixes.push([k, before + end - spans.firstStart, prefixHash(mixed, digest)]);
  }
  return prefixes;
}

/**
 * Counts the tool results after the model's last message, parsing messages from the end back to it. Null when
 * that message lies before the kept spans or past MAX_PARSED_TAIL_BYTES.
 */
function toolResultsAtEnd(raw: Buffer, spans: ElementSpans): number | null {
  let results = 0;
  let parsed = 0;
  for (let i = spans.count - 1; i >= spans.oldestKept; i--) {
    const start = spans.start(i);
    const end = spans.end(i);
    parsed += end - start;
    if (parsed > MAX_PARSED_TAIL_BYTES) return null;
    const message = parseJsonObject(raw.toString('utf8', start, end));
    if (message === undefined) continue;
    if (fromModel(message)) return results;
    results += toolResultsIn(message);
  }
  // Every message was seen and none was the model's (a first turn, or Responses input after previous_response_id).
  return spans.oldestKept === 0 ? results : null;
}

/** A message the model produced: an assistant message, or a Responses output item (reasoning, a tool call). */
function fromModel(message: JsonObject): boolean {
  if (message['role'] === 'assistant') return true;
  const type = message['type'];
  return typeof type === 'string' && (type === 'reasoning' || type.endsWith('_call'));
}

function toolResultsIn(message: JsonObject): number {
  const role = message['role'];
  if (role === 'tool' || role === 'function') return 1;
  const type = message['type'];
  if (typeof type === 'string' && type.endsWith('_call_output')) return 1;
  const content = message['content'];
  if (!Array.isArray(content)) return 0;
  let blocks = 0;
  for (const block of content) if (isJsonObject(block) && block['type'] === 'tool_result') blocks++;
  return blocks;
}
