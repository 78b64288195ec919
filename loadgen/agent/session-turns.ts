// One replayed session's turns: what each turn sends, given what the model actually answered before it.
//
// A turn either continues the conversation or starts it afresh, as its prefix block ids say. It continues when
// it keeps every full block of the turn before it (the capture's agent sent its whole history again): its prompt
// is the previous prompt, the model's actual answer (text and tool calls, in the protocol's form) and then a
// tool result for each call the answer made, or a user message when it made none, their text sized so the prompt
// reaches the recorded `input_length`. Otherwise (the first turn, or an agent that compacted its context) the
// prompt is one user message built from the ids alone (block-prompts.ts): equal ids give equal text.
//
// Sizing: the server's count of the previous prompt (its usage) is known once that turn is answered, so only the
// new messages are estimated, by the run's tokenizer plus MESSAGE_TOKENS per message; the error of that estimate,
// seen when the next usage arrives, corrects the estimates after it (per protocol, shared by the sessions, which
// all offer the same tool), so a prompt's length drifts by at most one turn's estimate error.
//
// Expected prefix-cache hits: a turn's leading block ids that an earlier request of the run already sent, times
// the block size (the trace's meaning: the same id at the same position is the same prefix).

import type { Tokenizer } from '../tokenizer/tokenizer.js';
import type { AgentApi, AgentSession, AgentTurn } from '../traces/agent-sessions.js';
import { blockPrompt } from '../traces/block-prompts.js';
import { agentTurnBody, type ConversationEntry, type TurnBodyOptions } from './agent-bodies.js';
import type { ReadAnswer } from './answer-reading.js';

/** Template tokens a message costs beyond its text (ChatML-like templates: the simulator's 3 opening + 1 closing). */
const MESSAGE_TOKENS = 4;
/** Template tokens that prompt the reply after the last message. */
const REPLY_TOKENS = 3;

/** What the run's sessions share: the estimate corrections and the block ids already sent. */
export class ReplayState {
  /**
   * The estimate's correction by kind of prompt (errorKey): the server's count less the estimate, as last seen.
   * Sessions share it: they offer the same tool and build their messages alike.
   */
  readonly #corrections = new Map<string, number>();
  readonly #sentBlocks = new Set<string>();

  constructor(
    readonly tokenizer: Tokenizer,
    readonly body: Omit<TurnBodyOptions, 'maxTokens' | 'callTool'>,
    /** The protocol of a turn the trace gives none for (the run's backend's). */
    readonly defaultApi: AgentApi,
    /** Replays every session in this protocol instead of its recorded one. */
    readonly api?: AgentApi,
  ) {}

  correction(key: string): number {
    return this.#corrections.get(key) ?? 0;
  }

  /** `error`: the server's count less an estimate that was sized with `correction`. */
  noteError(key: string, correction: number, error: number): void {
    this.#corrections.set(key, correction + error);
  }

  /**
   * The turn's expected cached tokens, then its ids count as sent. Ids are matched within one protocol: each
   * protocol's requests open with its own rendering of the tool list, so no prefix is shared across protocols.
   */
  expectedCachedTokens(turn: AgentTurn, api: AgentApi, blockTokens: number): number {
    const key = (position: number): string => `${api}:${position}:${turn.hashIds[position]}`;
    let leading = 0;
    while (leading < turn.hashIds.length && this.#sentBlocks.has(key(leading))) leading++;
    for (let position = 0; position < turn.hashIds.length; position++) this.#sentBlocks.add(key(position));
    return Math.min(leading * blockTokens, turn.inputLength);
  }

  count(text: string): number {
    return this.tokenizer.count(text, { addSpecialTokens: false });
  }
}

/** One turn, ready to send. */
export interface PlannedTurn {
  readonly api: AgentApi;
  readonly body: Buffer;
  /** The prompt's length as this replay estimates the server will count it. */
  readonly promptTokens: number;
  readonly expectedCachedTokens: number;
  /** True when it starts the conversation afresh (turn 0, or a context the capture's agent compacted). */
  readonly fresh: boolean;
  /** Its kind of prompt, for the estimate's correction: the protocol, and fresh or the answer's tool calls. */
  readonly errorKey: string;
  /** The correction it was sized with. */
  readonly correction: number;
}

export class SessionTurns {
  #entries: ConversationEntry[] = [];
  /** The server's count of the last prompt sent (its usage), else this replay's estimate of it. */
  #lastPromptTokens = 0;
  #lastPlanned: PlannedTurn | undefined;
  #answer: ReadAnswer | undefined;

  constructor(
    readonly session: AgentSession,
    private readonly state: ReplayState,
    /** Tokens per hash id block (the trace's). */
    private readonly blockTokens: number,
  ) {}

  /** The protocol turn `k` is replayed in. */
  apiOf(k: number): AgentApi {
    return this.state.api ?? (this.session.turns[k] as AgentTurn).api ?? this.state.defaultApi;
  }

  /** The request of turn `k`, after turn k-1 was answered (answered() was called). */
  plan(k: number): PlannedTurn {
    const turn = this.session.turns[k] as AgentTurn;
    const api = this.apiOf(k);
    const previous = k === 0 ? undefined : (this.session.turns[k - 1] as AgentTurn);
    const fresh =
      previous === undefined || this.#answer === undefined || !continues(previous, turn, this.blockTokens);
    const bodyOptions = {
      ...this.state.body,
      maxTokens: Math.max(1, turn.outputLength),
      callTool: turn.toolCalls === null ? null : turn.toolCalls > 0,
    };
    const salt = `${this.session.id}:${k}`;
    let promptTokens: number;
    const errorKey = `${api}:${fresh ? 'fresh' : `after ${this.#answer?.toolCalls.length ?? 0} calls`}`;
    const correction = this.state.correction(errorKey);
    if (fresh) {
      // The tool list, one message and the reply's opening are the prompt's fixed part.
      const fixed = this.#toolTokens(api, bodyOptions) + MESSAGE_TOKENS + REPLY_TOKENS + correction;
      const words = Math.max(1, Math.round(turn.inputLength - fixed));
      this.#entries = [
        {
          kind: 'user',
          text: blockPrompt(turn.hashIds, words, { blockTokens: this.blockTokens, uniqueSalt: salt }),
        },
      ];
      promptTokens = fixed + words;
    } else {
      const answer = this.#answer as ReadAnswer;
      const assistant: ConversationEntry = {
        kind: 'assistant',
        text: answer.text,
        toolCalls: answer.toolCalls,
      };
      const replies = Math.max(1, answer.toolCalls.length);
      const known =
        this.#lastPromptTokens +
        MESSAGE_TOKENS +
        this.state.count(answer.text) +
        answer.toolCalls.reduce((n, c) => n + this.state.count(c.name) + this.state.count(c.arguments), 0) +
        replies * MESSAGE_TOKENS +
        correction;
      const words = Math.max(replies, Math.round(turn.inputLength - known));
      // The new text follows the ids past the blocks the previous turn filled, so equal ids give equal words.
      const fullBefore = Math.floor((previous as AgentTurn).inputLength / this.blockTokens);
      const text = blockPrompt(turn.hashIds.slice(fullBefore), words, {
        blockTokens: this.blockTokens,
        uniqueSalt: salt,
      }).split(' ');
      const share = (i: number): string =>
        text.slice(Math.floor((i * words) / replies), Math.floor(((i + 1) * words) / replies)).join(' ');
      const added: ConversationEntry[] =
        answer.toolCalls.length === 0
          ? [{ kind: 'user', text: share(0) }]
          : answer.toolCalls.map((call, i) => ({ kind: 'tool-result', callId: call.id, text: share(i) }));
      this.#entries = [...this.#entries, assistant, ...added];
      promptTokens = known + words;
    }
    const body = agentTurnBody(api, this.#entries, bodyOptions);
    this.#lastPlanned = {
      api,
      body: Buffer.from(JSON.stringify(body)),
      promptTokens,
      expectedCachedTokens: this.state.expectedCachedTokens(turn, api, this.blockTokens),
      fresh,
      errorKey,
      correction,
    };
    return this.#lastPlanned;
  }

  /** Turn `k` was answered: `usagePromptTokens` is the server's count of its prompt (null without usage). */
  answered(answer: ReadAnswer, usagePromptTokens: number | null): void {
    const planned = this.#lastPlanned as PlannedTurn;
    if (usagePromptTokens !== null) {
      this.state.noteError(planned.errorKey, planned.correction, usagePromptTokens - planned.promptTokens);
      this.#lastPromptTokens = usagePromptTokens;
    } else {
      this.#lastPromptTokens = planned.promptTokens;
    }
    this.#answer = answer;
  }

  #toolTokens(api: AgentApi, options: TurnBodyOptions): number {
    const tools = agentTurnBody(api, [], options)['tools'];
    return tools === undefined ? 0 : MESSAGE_TOKENS + this.state.count(JSON.stringify(tools));
  }
}

/** Whether `turn` keeps every full block of `previous` (its agent sent the whole history again). */
function continues(previous: AgentTurn, turn: AgentTurn, blockTokens: number): boolean {
  const full = Math.floor(previous.inputLength / blockTokens);
  if (turn.hashIds.length < full) return false;
  for (let i = 0; i < full; i++) if (turn.hashIds[i] !== previous.hashIds[i]) return false;
  return true;
}
