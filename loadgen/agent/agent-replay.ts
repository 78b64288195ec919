// A trace's sessions as the agent replay engine takes them (AgentSessionSource): each session's turns planned by
// SessionTurns, sharing one ReplayState (estimate corrections, block ids sent), and the recorded facts the
// records carry beside what happened. Also the replay's own check of a trace: a turn whose answer called tools
// must be followed by a turn that sends their results, else the capture's client never answered them and no
// protocol lets the replay go on from there.

import type { AgentSessionSource, AgentTurnRequest } from '../engine/agent-session-engine.js';
import {
  type AgentSession,
  type AgentTrace,
  AgentTraceError,
  type AgentTurn,
} from '../traces/agent-sessions.js';
import { readAnswer } from './answer-reading.js';
import { type ReplayState, SessionTurns } from './session-turns.js';

/** Throws, in one line, at the first turn that sends no result for the tool calls of the turn before it. */
export function checkToolAnswers(trace: AgentTrace, path: string): void {
  for (const session of trace.sessions) {
    for (let k = 0; k + 1 < session.turns.length; k++) {
      const asked = (session.turns[k] as AgentTurn).toolCalls;
      const next = session.turns[k + 1] as AgentTurn;
      if (asked !== null && asked > 0 && next.toolResults === 0)
        throw new AgentTraceError(
          `${path}: line ${next.line}: turn ${k + 1} of session '${session.id}' sends no tool result for the ${asked} tool call${asked === 1 ? '' : 's'} turn ${k} asked for: a tool call the client never answered cannot be replayed`,
        );
    }
  }
}

export class AgentReplay implements AgentSessionSource {
  readonly #sessions: readonly AgentSession[];
  readonly #turns: SessionTurns[];

  constructor(sessions: readonly AgentSession[], blockTokens: number, state: ReplayState) {
    this.#sessions = sessions;
    this.#turns = sessions.map((session) => new SessionTurns(session, state, blockTokens));
  }

  get sessionCount(): number {
    return this.#sessions.length;
  }

  #turn(session: number, turn: number): AgentTurn {
    return (this.#sessions[session] as AgentSession).turns[turn] as AgentTurn;
  }

  sessionId(session: number): string {
    return (this.#sessions[session] as AgentSession).id;
  }

  turnCount(session: number): number {
    return (this.#sessions[session] as AgentSession).turns.length;
  }

  recordedWaitMs(session: number, turn: number): number {
    return this.#turn(session, turn).waitMs;
  }

  recordedLengths(session: number, turn: number): { input: number; output: number } {
    const t = this.#turn(session, turn);
    return { input: t.inputLength, output: t.outputLength };
  }

  plan(session: number, turn: number): AgentTurnRequest {
    return (this.#turns[session] as SessionTurns).plan(turn);
  }

  answered(session: number, turn: number, answerBody: string, usagePromptTokens: number | null): number {
    const turns = this.#turns[session] as SessionTurns;
    const answer = readAnswer(turns.apiOf(turn), answerBody);
    turns.answered(answer, usagePromptTokens);
    return answer.toolCalls.length;
  }
}
