// The agent sessions a trace holds, in memory: what every agentic trace reader produces (agentic-trace.ts for
// tokenmeter's own JSONL, aiperf-session-trace.ts for AIPerf's Mooncake form with sessions) and what a replay of
// sessions consumes. A trace is sessions; a session is its turns in order; a turn is one request of the agent's
// loop:
//
//   AgentTrace   { format, blockTokens, sessions: AgentSession[] }    sessions in order of their first turn
//   AgentSession { id, startMs, turns: AgentTurn[] }                  startMs: turn 0's arrival, null if unknown
//   AgentTurn    { turn, timestampMs, waitMs, inputLength, outputLength, hashIds, api, toolCalls, toolResults, model, line }
//
// Timing: turn 0 starts its session at `startMs` (ms after the trace's first request; null when the format gives
// no time, so a replay starts sessions on a rate). Turn k > 0 is sent `waitMs` after turn k-1's answer ended (the
// agent's tool and think time); `timestampMs` is its recorded arrival, for reading only (null when the format has none).
// Prompts: `hashIds` has one id per `blockTokens` tokens of the prompt (the last block may be partial); equal ids
// are equal blocks, and the same id at the same place in two turns is a shared prefix (Mooncake's meaning).
// `api` is the protocol the turn used; null when the format does not say (the replay's backend decides). Counts
// the format does not carry are null. `line` is the file line the turn came from, for messages.
//
// The builder below holds the rules every reader enforces on the order of a session's turns; each reader checks
// its own fields. A break of either is one line naming the file, the line and the field (AgentTraceError).
import { jsonObjectOfLine } from '../../src/shared/json-object.js';
import { UserFacingError } from '../../src/shared/user-facing-error.js';

export const AGENT_APIS = ['chat', 'responses', 'messages', 'completions'] as const;
export type AgentApi = (typeof AGENT_APIS)[number];

/** Mooncake's block size, the default of every format here. */
export const DEFAULT_AGENT_BLOCK_TOKENS = 512;

export interface AgentTurn {
  /** Its index in the session, from 0. */
  readonly turn: number;
  /** Its recorded arrival, ms after the trace's first request; null when the format has none for it. */
  readonly timestampMs: number | null;
  /** 0 for turn 0; later: ms from the previous turn's answer end to this turn's send. */
  readonly waitMs: number;
  readonly inputLength: number;
  readonly outputLength: number;
  /** ceil(inputLength / blockTokens) ids. */
  readonly hashIds: readonly number[];
  readonly api: AgentApi | null;
  /** Tool calls the answer asked for; null when the format does not say. */
  readonly toolCalls: number | null;
  /** Tool results this request sent back; null when the format does not say. */
  readonly toolResults: number | null;
  /** The model the client asked for; null when the trace does not keep it. */
  readonly model: string | null;
  /** The file line it came from (1-based). */
  readonly line: number;
}

export interface AgentSession {
  readonly id: string;
  /** Turn 0's arrival, ms after the trace's first request; null when the format gives no time. */
  readonly startMs: number | null;
  readonly turns: readonly AgentTurn[];
}

export interface AgentTrace {
  /** Which reader read it: `tokenmeter` (agentic-trace.ts) or `aiperf` (aiperf-session-trace.ts). */
  readonly format: 'tokenmeter' | 'aiperf';
  /** Tokens per hash id block. */
  readonly blockTokens: number;
  /** In order of their first turn's line. */
  readonly sessions: readonly AgentSession[];
}

/** A trace that breaks its format: one line, `FILE: line N: what`, exit 1 as for any file that cannot be used. */
export class AgentTraceError extends UserFacingError {}

/** A JSONL trace's objects with their 1-based line numbers, blank lines skipped; a line that is not a JSON object
 *  is refused through `fail` with the reader's own wording. Both trace readers walk their files with it. */
export function* traceLines(
  text: string,
  fail: (line: number, why: string) => never,
): Generator<{ readonly line: number; readonly fields: Record<string, unknown> }> {
  let line = 0;
  for (const raw of text.split('\n')) {
    line++;
    if (raw.trim() === '') continue;
    const fields = jsonObjectOfLine(raw);
    if (typeof fields === 'string') fail(line, fields);
    yield { line, fields: fields as Record<string, unknown> };
  }
}

/** Whole, at least `min`. */
export function isWhole(value: unknown, min: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min;
}

/** Finite, at least 0. */
export function isTime(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

/** The turn a reader found on a line; `turn` is its stated index, or null when the format numbers by order. */
export type TurnFound = Omit<AgentTurn, 'turn'> & { readonly turn: number | null };

/** Gathers turns into sessions, refusing the orders no agent produces (see the header). */
export class SessionsBuilder {
  readonly #sessions = new Map<string, { id: string; startMs: number | null; turns: AgentTurn[] }>();

  constructor(readonly fail: (line: number, why: string) => never) {}

  add(sessionId: string, found: TurnFound): void {
    let session = this.#sessions.get(sessionId);
    const expected = session?.turns.length ?? 0;
    if (found.turn !== null && found.turn !== expected) {
      this.fail(
        found.line,
        expected === 0
          ? `'turn' is ${found.turn} but session '${sessionId}' has no turn before it (turns count from 0)`
          : found.turn < expected
            ? `'turn' ${found.turn} of session '${sessionId}' was already given (its turns so far: 0 to ${expected - 1})`
            : `'turn' ${found.turn} of session '${sessionId}' skips turn ${expected}`,
      );
    }
    if (expected === 0 && found.waitMs !== 0)
      this.fail(found.line, `'wait_ms' must be 0 on a session's first turn (got ${found.waitMs})`);
    const previous = session?.turns[expected - 1];
    if (previous !== undefined && previous.timestampMs !== null && found.timestampMs !== null) {
      if (found.timestampMs < previous.timestampMs)
        this.fail(
          found.line,
          `turn ${expected} of session '${sessionId}' arrives at ${found.timestampMs} ms, before turn ${expected - 1} (${previous.timestampMs} ms)`,
        );
      // It was sent waitMs after the previous answer ended, which was after the previous turn arrived.
      if (found.timestampMs - previous.timestampMs < found.waitMs)
        this.fail(
          found.line,
          `turn ${expected} of session '${sessionId}' overlaps turn ${expected - 1}: it arrives ${found.timestampMs - previous.timestampMs} ms after it, less than its 'wait_ms' (${found.waitMs}) after that turn's answer`,
        );
    }
    const turn: AgentTurn = { ...found, turn: expected };
    if (session === undefined) {
      session = { id: sessionId, startMs: found.timestampMs, turns: [] };
      this.#sessions.set(sessionId, session);
    }
    session.turns.push(turn);
  }

  sessions(): AgentSession[] {
    return [...this.#sessions.values()];
  }
}
