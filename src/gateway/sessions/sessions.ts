// Which session each request belongs to, and its turn in it (docs/metrics.md, "Sessions"). A session is found
// from what the client sends, first that applies:
//
//   1. header `x-claude-code-session-id` (Claude Code), then `session-id` or `session_id` (Codex)
//   2. Anthropic `metadata.user_id` when it embeds a session (Claude Code writes one there)
//   3. `prompt_cache_key` (OpenAI chat and Responses; Codex sets it to its conversation)
//   4. `previous_response_id`: the session of the answer it names
//   5. prefix chaining: a conversation that extends the last one of a session by whole messages is its next turn
//
// and a request none of these places starts a session of its own. A client's id is used only when it is 1 to
// MAX_SESSION_ID_CHARS printable ASCII characters (U+0021 to U+007E); any other value is ignored, as if not sent,
// and the next source applies. Ids stay in records and spans: never in a metric label.
//
// The table is bounded in count (MAX_SESSIONS, least recently used out first) and in age (a session idle for
// MAX_IDLE_MS is forgotten); a session forgotten and seen again starts over at turn 0. It lives in one gateway
// process: with workers > 1 each worker keeps its own.
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { ConversationFacts } from './conversation.js';

export const MAX_SESSIONS = 10_000;
/** Response ids kept for previous_response_id chains: a few per session. */
export const MAX_RESPONSE_IDS = 4 * MAX_SESSIONS;
export const MAX_IDLE_MS = 60 * 60 * 1000;
export const MAX_SESSION_ID_CHARS = 128;

/** How a request was placed in its session (the record's sessionSource): the first source above that applied. */
export const SESSION_SOURCES = [
  'claude-code-header',
  'codex-header',
  'metadata-user-id',
  'prompt-cache-key',
  'previous-response-id',
  'prefix',
] as const;
export type SessionSource = (typeof SESSION_SOURCES)[number];

/** The session ids a client may send as headers, in the order they are read. */
const SESSION_HEADERS: readonly (readonly [string, SessionSource])[] = [
  ['x-claude-code-session-id', 'claude-code-header'],
  ['session-id', 'codex-header'],
  // Earlier Codex versions spelled it with an underscore.
  ['session_id', 'codex-header'],
];

/** A client's session id when it is one to keep (see the header comment's rule); undefined otherwise. */
export function validSessionId(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_SESSION_ID_CHARS)
    return undefined;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x21 || c > 0x7e) return undefined;
  }
  return value;
}

interface Session {
  readonly id: string;
  /** Found by its conversation (no id was sent): each turn's conversation hash is kept to find the next. */
  readonly chained: boolean;
  /** The key it is found by in the table: the client's id, or its own for the sessions the gateway names. */
  readonly key: string;
  turns: number;
  /** Its requests not yet finished. */
  inFlight: number;
  /** performance.now() of the latest answer's end; NaN before the first. */
  lastEndAt: number;
  lastSeenAt: number;
  /** The hash of its latest conversation, by which its next turn is found (prefix chaining). */
  conversationHash: string | undefined;
  forgotten: boolean;
}

/** One request's place in its session: what its record says, and what its end updates. */
export interface SessionTurn {
  readonly sessionId: string;
  readonly turn: number;
  /** How this request was placed in it. */
  readonly source: SessionSource;
  /** Milliseconds from the session's last answer's end to this arrival; null for turn 0 or with another in flight. */
  readonly waitBeforeMs: number | null;
  readonly session: Session;
}

export class SessionTable {
  /** Every session, least recently seen first. */
  readonly #byKey = new Map<string, Session>();
  readonly #byConversation = new Map<string, Session>();
  readonly #byResponseId = new Map<string, Session>();
  readonly #maxSessions: number;

  constructor(maxSessions = MAX_SESSIONS) {
    this.#maxSessions = maxSessions;
  }

  get size(): number {
    return this.#byKey.size;
  }

  /**
   * The session of a request that arrived at `arrivedAt` (performance.now()), as its headers and its body's
   * conversation place it; undefined when neither says anything (a body without a conversation and no id).
   */
  begin(
    headers: IncomingHttpHeaders,
    conversation: ConversationFacts | undefined,
    arrivedAt: number,
  ): SessionTurn | undefined {
    this.#forgetIdle(arrivedAt);
    const found = this.#find(headers, conversation);
    if (found === undefined) return undefined;
    const [session, source] = found;
    const chain = session.chained ? conversation?.chain() : undefined;
    if (chain !== undefined) {
      if (session.conversationHash !== undefined) this.#byConversation.delete(session.conversationHash);
      session.conversationHash = chain.hash;
      this.#byConversation.set(chain.hash, session);
    }
    const waited = session.inFlight === 0 && !Number.isNaN(session.lastEndAt);
    const turn: SessionTurn = {
      sessionId: session.id,
      source,
      turn: session.turns,
      waitBeforeMs: waited ? arrivedAt - session.lastEndAt : null,
      session,
    };
    session.turns++;
    session.inFlight++;
    session.lastSeenAt = arrivedAt;
    // Most recently seen last.
    this.#byKey.delete(session.key);
    this.#byKey.set(session.key, session);
    return turn;
  }

  /** The turn's answer ended at `endedAt`; `responseId` (Responses) lets a later previous_response_id find it. */
  end(turn: SessionTurn, endedAt: number, responseId: string | undefined): void {
    const session = turn.session;
    session.inFlight--;
    if (!(session.lastEndAt >= endedAt)) session.lastEndAt = endedAt;
    session.lastSeenAt = Math.max(session.lastSeenAt, endedAt);
    const id = validSessionId(responseId);
    if (id === undefined || session.forgotten) return;
    this.#byResponseId.delete(id);
    this.#byResponseId.set(id, session);
    if (this.#byResponseId.size > MAX_RESPONSE_IDS)
      this.#byResponseId.delete(this.#byResponseId.keys().next().value as string);
  }

  /** The request's session and how it was found. */
  #find(
    headers: IncomingHttpHeaders,
    conversation: ConversationFacts | undefined,
  ): readonly [Session, SessionSource] | undefined {
    for (const [name, source] of SESSION_HEADERS) {
      const id = validSessionId(headers[name]);
      if (id !== undefined) return [this.#byClientId(id), source];
    }
    if (conversation === undefined) return undefined;
    const metadata = validSessionId(conversation.metadataSession);
    if (metadata !== undefined) return [this.#byClientId(metadata), 'metadata-user-id'];
    const cacheKey = validSessionId(conversation.promptCacheKey);
    if (cacheKey !== undefined) return [this.#byClientId(cacheKey), 'prompt-cache-key'];
    const previous = validSessionId(conversation.previousResponseId);
    if (previous !== undefined) {
      const answered = this.#byResponseId.get(previous);
      const session =
        answered !== undefined && !answered.forgotten ? answered : this.#add(randomUUID(), false);
      return [session, 'previous-response-id'];
    }
    const chain = conversation.chain();
    if (chain === undefined) return undefined;
    for (const hash of chain.prefixHashes) {
      const earlier = this.#byConversation.get(hash);
      if (earlier !== undefined) return [earlier, 'prefix'];
    }
    return [this.#add(randomUUID(), true), 'prefix'];
  }

  #byClientId(id: string): Session {
    return this.#byKey.get(id) ?? this.#add(id, false);
  }

  #add(id: string, chained: boolean): Session {
    const session: Session = {
      id,
      chained,
      key: id,
      turns: 0,
      inFlight: 0,
      lastEndAt: Number.NaN,
      lastSeenAt: 0,
      conversationHash: undefined,
      forgotten: false,
    };
    this.#byKey.set(id, session);
    while (this.#byKey.size > this.#maxSessions) {
      this.#forget(this.#byKey.values().next().value as Session);
    }
    return session;
  }

  /** Sessions idle for MAX_IDLE_MS, from the least recently seen (the table's order) until one is not. */
  #forgetIdle(now: number): void {
    for (const session of this.#byKey.values()) {
      if (now - session.lastSeenAt < MAX_IDLE_MS) return;
      // One waiting on an answer is not idle (a stream longer than the bound); those past it may be.
      if (session.inFlight === 0) this.#forget(session);
    }
  }

  #forget(session: Session): void {
    session.forgotten = true;
    this.#byKey.delete(session.key);
    if (session.conversationHash !== undefined) this.#byConversation.delete(session.conversationHash);
  }
}
