// ShareGPT conversations as sessions (`bench --multi-turn`): each conversation's user turns, in order, each with
// the number of tokens its reply had in the dataset (what the turn asks for), so a session can be replayed turn
// by turn with the history the model actually produced (loadgen/engine/session-engine.ts). The pool is the same
// as single-turn sampling's (entries with two or more turns, sharegpt-sampler.ts's first pass), shuffled with the
// seed, and the first `numPrompts` conversations that yield a turn are kept.
//
// A turn is a user message (`from` human or user) followed by a reply (gpt, assistant, chatgpt, bard); system
// messages and anything else end the walk, as does `maxTurns`. A turn whose reply measures 0 tokens ends it
// too: asking a server for nothing times nothing.

import { hashSeed, SeededRandom } from '../../src/shared/random.js';
import { openRegularFile } from '../../src/shared/regular-file.js';
import { UserFacingError } from '../../src/shared/user-facing-error.js';
import type { Tokenizer } from '../tokenizer/tokenizer.js';
import type { SampleRequest } from './sample-request.js';
import { readShareGptElementAt, type ShareGptTurn } from './sharegpt-reader.js';
import { scanEligible } from './sharegpt-sampler.js';

const USER = new Set(['human', 'user']);
const ASSISTANT = new Set(['gpt', 'assistant', 'chatgpt', 'bard', 'model']);

/** One conversation: its turns are `requests[first .. first + turns - 1]` of the dataset. */
export interface SessionSpan {
  readonly sessionId: string;
  readonly first: number;
  readonly turns: number;
}

export interface ShareGptSessionsOptions {
  readonly path: string;
  /** Sessions to take. */
  readonly numPrompts: number;
  readonly seed: number;
  readonly tokenizer: Tokenizer;
  /** At most this many turns per session (vLLM's multi-turn benchmark: --max-turns). */
  readonly maxTurns?: number;
  /** Ask every turn for this many tokens instead of its reply's length (--sharegpt-output-len). */
  readonly fixedOutputLen?: number;
}

export interface ShareGptSessions {
  /** Every turn of every session, session after session; each turn's prompt is its user message alone. */
  readonly requests: SampleRequest[];
  readonly sessions: SessionSpan[];
  readonly notes: string[];
}

/** The user-reply pairs at the start of a conversation. */
export function userTurns(turns: readonly ShareGptTurn[], maxTurns: number): [ShareGptTurn, ShareGptTurn][] {
  const pairs: [ShareGptTurn, ShareGptTurn][] = [];
  for (let i = 0; i + 1 < turns.length && pairs.length < maxTurns; i += 2) {
    const user = turns[i] as ShareGptTurn;
    const reply = turns[i + 1] as ShareGptTurn;
    if (!USER.has(user.from?.toLowerCase() ?? '') || !ASSISTANT.has(reply.from?.toLowerCase() ?? '')) break;
    pairs.push([user, reply]);
  }
  return pairs;
}

export async function sampleShareGptSessions(options: ShareGptSessionsOptions): Promise<ShareGptSessions> {
  const { ranges, read } = await scanEligible({ ...options });
  const eligible = ranges.length / 3;
  const order = Array.from({ length: eligible }, (_, i) => i);
  new SeededRandom(hashSeed('sharegpt-sessions', options.seed)).shuffle(order);
  const maxTurns = options.maxTurns ?? Number.POSITIVE_INFINITY;
  const requests: SampleRequest[] = [];
  const sessions: SessionSpan[] = [];
  let withoutTurns = 0;
  const file = await openRegularFile(options.path);
  try {
    for (const slot of order) {
      if (sessions.length >= options.numPrompts) break;
      const conversation = await readShareGptElementAt(
        file,
        ranges[slot * 3] as number,
        ranges[slot * 3 + 1] as number,
        ranges[slot * 3 + 2] as number,
      );
      if (typeof conversation === 'string') continue;
      const first = requests.length;
      for (const [user, reply] of userTurns(conversation.conversations, maxTurns)) {
        const outputTokens = options.fixedOutputLen ?? options.tokenizer.count(reply.value);
        if (outputTokens < 1 || user.value === '') break;
        requests.push({
          prompt: user.value,
          promptTokens: options.tokenizer.count(user.value, { addSpecialTokens: true }),
          outputTokens,
          sourceId: `${conversation.id}#${requests.length - first + 1}`,
        });
      }
      if (requests.length === first) withoutTurns++;
      else sessions.push({ sessionId: conversation.id, first, turns: requests.length - first });
    }
  } finally {
    await file.close();
  }
  if (sessions.length === 0) {
    throw new UserFacingError(
      `ShareGPT file ${options.path}: no conversation starts with a user turn and its reply (${read.valid} well-formed, ${withoutTurns} without one)`,
    );
  }
  const single = sessions.filter((session) => session.turns === 1).length;
  const notes = [
    `${sessions.length} sessions of ${requests.length} turns (${(requests.length / sessions.length).toFixed(1)} a session` +
      `${Number.isFinite(maxTurns) ? `, at most ${maxTurns}` : ''})` +
      // Most conversations of one turn: few requests carry a history, so the run says little about sessions.
      (single * 2 > sessions.length
        ? `; ${single} of them have a single turn, so few requests carry a history: a dataset of longer conversations shows more`
        : ''),
  ];
  if (sessions.length < options.numPrompts)
    notes.push(
      `only ${sessions.length} conversations have a user turn and its reply (asked for ${options.numPrompts})`,
    );
  if (read.malformed > 0)
    notes.push(`skipped ${read.malformed} malformed entries: ${read.reasons.join('; ')}`);
  return { requests, sessions, notes };
}
