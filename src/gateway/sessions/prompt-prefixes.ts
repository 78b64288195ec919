// The prompt's block structure without its text: the record's `promptPrefixes` (docs/metrics.md, "Sessions"), from
// which `trace export --sessions` (loadgen/traces/records-agentic.ts) computes a turn's prefix block ids. At a few
// message boundaries of the prompt, each entry says how many messages it covers, how many bytes of the prompt
// (tools, then instructions, then messages, as sent) lie up to there, and a hash of those bytes.
//
// The hashes must say "equal" and nothing else. Each is a keyed SHA-256: RUN_KEY, then a SHA-256 of the
// protocol's name and the tools (the same instructions sent in two protocols are two prompts: each protocol's
// server renders its own), then the conversation's SHA-256 at that boundary (conversation.ts); cut to 96 bits.
// The inputs after the key have fixed lengths, so there is no room for length extension, and it is one native
// call where an HMAC object cost about 20 us. The key is random per gateway process and never written anywhere,
// so a hash cannot be checked against a guessed text, and two records share a hash only when both came through
// the same process. With `workers` above 1 each worker has its own key: its records share no prefix with another
// worker's (a session's turns usually reach one worker).
//
// Bounded whatever the conversation's length: the boundary before the first message (when the prompt has tools or
// instructions), after each of the first FIRST_PREFIXES messages, and after each of the last LAST_PREFIXES (the
// last being the whole conversation); at most 1 + FIRST_PREFIXES + LAST_PREFIXES entries. The first ones are
// what the sessions of one agent share (its system prompt and first message), the last ones what a session's next
// turn shares with this one (a turn adds a few messages).
import { createHash, hash, randomBytes } from 'node:crypto';

export const FIRST_PREFIXES = 4;
export const LAST_PREFIXES = 16;
export const MAX_PROMPT_PREFIXES = 1 + FIRST_PREFIXES + LAST_PREFIXES;
/** Bytes of HMAC kept: 96 bits, 16 base64url characters; no two prefixes of a trace collide by chance. */
const HASH_BYTES = 12;

/** Per process, never logged or recorded (see the header). */
const RUN_KEY = randomBytes(32);

/** One boundary: messages before it, bytes of the prompt up to it, the keyed hash of those bytes. */
export type PromptPrefix = readonly [messages: number, bytes: number, hash: string];

/** Which message boundaries get an entry, for a conversation of `count` messages (0: before the first). */
export function prefixBoundaries(count: number, framed: boolean): number[] {
  const boundaries: number[] = framed ? [0] : [];
  const lastFrom = Math.max(1, count - LAST_PREFIXES + 1);
  for (let k = 1; k <= count; k++) if (k <= FIRST_PREFIXES || k >= lastFrom) boundaries.push(k);
  return boundaries;
}

/** What frames the conversation besides its instructions: the protocol (`chat`, ...) and the tools' bytes. */
export function frameDigest(protocol: string, tools: Buffer | undefined): Buffer {
  const hash = createHash('sha256').update(protocol).update('\u0000');
  if (tools !== undefined) hash.update(tools);
  return hash.digest();
}

/** One entry's hash: keyed, cut, base64url. */
export function prefixHash(frame: Buffer, conversationDigest: Buffer): string {
  return hash('sha256', Buffer.concat([RUN_KEY, frame, conversationDigest]), 'buffer')
    .subarray(0, HASH_BYTES)
    .toString('base64url');
}
