// A peer's agentic trace: AIPerf's `mooncake_trace` custom dataset with sessions (ai-dynamo/aiperf: the
// `MooncakeTrace` model in src/aiperf/dataset/loader/models.py, grouped into sessions by
// src/aiperf/dataset/loader/mooncake_trace.py; docs/benchmark-modes/trace-replay.md). JSON lines, one a turn:
//
//   session_id     optional string: lines that share it are one session, its turns in file order; a line
//                  without one is a session of its own
//   timestamp      optional, ms: when the turn is sent (a session's first turn: when the session starts)
//   delay          optional, ms: how long to wait before sending the turn, after the previous turn of its session
//   input_length   prompt tokens      output_length  output tokens
//   hash_ids       optional: prefix block ids, one per block of 512 tokens by default (Mooncake's)
//
// AIPerf's other input modes (`text_input`, `messages`, `payload`) carry text, which a replay of lengths and
// block ids has no use for: such a line is refused, as is one without `input_length` or `output_length` (AIPerf
// would take its command line's lengths; this file must say them). `hash_ids` shorter than the prompt's blocks
// are completed with ids of the turn's own (AIPerf fills the rest with text of its own too); longer is refused.
// A `delay` on a session's first turn is refused: a session starts at its `timestamp`, or on the replay's rate.
// Session ids follow tokenmeter's rule (1 to 128 printable ASCII characters). The format says nothing of the
// protocol or of tool calls: those are null in the result, agent-sessions.ts's AgentTrace.
import { validSessionId } from '../../src/gateway/sessions/sessions.js';
import {
  type AgentTrace,
  AgentTraceError,
  DEFAULT_AGENT_BLOCK_TOKENS,
  isTime,
  isWhole,
  SessionsBuilder,
  type TurnFound,
  traceLines,
} from './agent-sessions.js';
import { readTraceText, shown } from './agentic-trace.js';

/** AIPerf's input modes that carry text instead of a length. */
const TEXT_MODES = ['text_input', 'messages', 'payload'] as const;

/** Reads the text of an AIPerf session trace; `path` names it in messages. */
export function parseAiperfSessionTrace(
  text: string,
  path: string,
  blockTokens = DEFAULT_AGENT_BLOCK_TOKENS,
): AgentTrace {
  const fail = (line: number, why: string): never => {
    throw new AgentTraceError(`${path}: line ${line}: ${why}`);
  };
  const found: { sessionId: string; turn: TurnFound }[] = [];
  const started = new Set<string>();
  let largestId = -1;
  for (const { line, fields: f } of traceLines(text, fail)) {
    for (const mode of TEXT_MODES) {
      if (f[mode] !== undefined)
        fail(
          line,
          `'${mode}' carries text; tokenmeter replays AIPerf traces by 'input_length' and 'hash_ids' only`,
        );
    }
    const given = f['session_id'];
    if (given !== undefined && validSessionId(given) === undefined)
      fail(line, `'session_id' must be 1 to 128 printable ASCII characters (got ${shown(given)})`);
    // A line of its own: a name no valid id can take (it has a space).
    const sessionId = (given as string | undefined) ?? `line ${line}`;
    const input = f['input_length'];
    if (!isWhole(input, 1)) fail(line, `'input_length' must be a whole number above 0 (got ${shown(input)})`);
    const output = f['output_length'];
    if (!isWhole(output, 1))
      fail(line, `'output_length' must be a whole number above 0 (got ${shown(output)})`);
    const timestamp = f['timestamp'];
    if (timestamp !== undefined && !isTime(timestamp))
      fail(line, `'timestamp' must be a number of milliseconds, 0 or more (got ${shown(timestamp)})`);
    const delay = f['delay'];
    if (delay !== undefined && !isTime(delay))
      fail(line, `'delay' must be a number of milliseconds, 0 or more (got ${shown(delay)})`);
    const first = !started.has(sessionId);
    if (first && delay !== undefined)
      fail(
        line,
        `'delay' on the first turn of session '${sessionId}': a session starts at its 'timestamp' or on the replay's rate`,
      );
    started.add(sessionId);
    const ids = f['hash_ids'] ?? [];
    if (!Array.isArray(ids) || !ids.every((id) => isWhole(id, 0)))
      fail(line, `'hash_ids' must be a list of whole numbers, 0 or more (got ${shown(ids)})`);
    const blocks = Math.ceil((input as number) / blockTokens);
    if ((ids as number[]).length > blocks)
      fail(
        line,
        `'hash_ids' holds ${(ids as number[]).length} ids but input_length ${input} has ${blocks} blocks of ${blockTokens}`,
      );
    for (const id of ids as number[]) largestId = Math.max(largestId, id);
    found.push({
      sessionId,
      turn: {
        turn: null,
        timestampMs: (timestamp as number | undefined) ?? null,
        waitMs: first ? 0 : ((delay as number | undefined) ?? 0),
        inputLength: input as number,
        outputLength: output as number,
        hashIds: ids as number[],
        api: null,
        toolCalls: null,
        toolResults: null,
        model: null,
        line,
      },
    });
  }
  if (found.length === 0)
    throw new AgentTraceError(`${path}: no turn in it (AIPerf's trace is JSON lines, one a turn)`);
  const builder = new SessionsBuilder(fail);
  let fresh = largestId + 1;
  for (const { sessionId, turn } of found) {
    const blocks = Math.ceil(turn.inputLength / blockTokens);
    const hashIds = [...turn.hashIds];
    while (hashIds.length < blocks) hashIds.push(fresh++);
    builder.add(sessionId, { ...turn, hashIds });
  }
  return { format: 'aiperf', blockTokens, sessions: builder.sessions() };
}

export async function readAiperfSessionTrace(
  path: string,
  blockTokens = DEFAULT_AGENT_BLOCK_TOKENS,
): Promise<AgentTrace> {
  return parseAiperfSessionTrace(await readTraceText(path), path, blockTokens);
}
