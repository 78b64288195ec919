// tokenmeter's agentic trace: JSON lines, one per turn of an agent's session, as `trace export --sessions` writes
// them (records-agentic.ts) and a replay of sessions reads them (docs/loadgen.md, "Agentic traces"; the contract
// the writer and the replay share). The line's fields:
//
//   session_id    string, 1-128 printable ASCII characters; the same for every turn of one session
//   turn          whole, from 0; a session's turns 0, 1, 2 ... in file order, none skipped or repeated
//   timestamp     ms from the trace's first request to this turn's arrival (Mooncake's name and unit)
//   wait_ms       0 on turn 0; later, ms from the previous turn's answer end to this arrival (tool and think time)
//   input_length  whole, >= 1: prompt tokens      output_length  whole, >= 0: output tokens
//   hash_ids      ceil(input_length / block_size) whole ids: prefix blocks, Mooncake's meaning
//   block_size    optional, whole >= 1, default 512; the same on every line of a file
//   api           chat | responses | messages | completions
//   tool_calls    whole >= 0: calls the answer asked for      tool_results  whole >= 0: results this turn sent
//   model         optional string: the model the client asked for
//
// Unknown fields are ignored (a later version may add some). Anything else is refused at its first offence, in
// one line naming the file, the line and the field: a replay of a broken session measures nothing true. Besides
// each field's own rule: within a session timestamps never decrease, and a turn arrives at least its wait_ms
// after the previous one arrived (its answer ended after that); a session id that is not printable ASCII is
// refused as garbage. The result is agent-sessions.ts's AgentTrace.
import { validSessionId } from '../../src/gateway/sessions/sessions.js';
import { fileErrorReason, readRegularFile } from '../../src/shared/regular-file.js';
import {
  AGENT_APIS,
  type AgentApi,
  type AgentTrace,
  AgentTraceError,
  DEFAULT_AGENT_BLOCK_TOKENS,
  isTime,
  isWhole,
  SessionsBuilder,
  traceLines,
} from './agent-sessions.js';

/** One line as written: the field order of the format above. */
export interface AgenticLine {
  readonly session_id: string;
  readonly turn: number;
  readonly timestamp: number;
  readonly wait_ms: number;
  readonly input_length: number;
  readonly output_length: number;
  readonly hash_ids: readonly number[];
  readonly block_size: number;
  readonly api: AgentApi;
  readonly tool_calls: number;
  readonly tool_results: number;
  readonly model?: string;
}

/** Reads a trace's text; `path` names it in messages. Throws AgentTraceError at the first broken line. */
export function parseAgenticTrace(text: string, path: string): AgentTrace {
  const fail = (line: number, why: string): never => {
    throw new AgentTraceError(`${path}: line ${line}: ${why}`);
  };
  const builder = new SessionsBuilder(fail);
  let blockTokens: number | undefined;
  for (const { line, fields: f } of traceLines(text, fail)) {
    const need = (name: string, ok: boolean, rule: string): void => {
      if (ok) return;
      fail(
        line,
        name in f
          ? `'${name}' ${rule} (got ${shown(f[name])})`
          : `'${name}' is missing (${rule.replace(/^must be/, 'it must be')})`,
      );
    };
    const sessionId = f['session_id'];
    need('session_id', typeof sessionId === 'string', 'must be a string');
    if (validSessionId(sessionId) === undefined)
      fail(line, `'session_id' must be 1 to 128 printable ASCII characters (got ${shown(sessionId)})`);
    need('turn', isWhole(f['turn'], 0), 'must be a whole number, 0 or more');
    need('timestamp', isTime(f['timestamp']), 'must be a number of milliseconds, 0 or more');
    need('wait_ms', isTime(f['wait_ms']), 'must be a number of milliseconds, 0 or more');
    need('input_length', isWhole(f['input_length'], 1), 'must be a whole number above 0');
    need('output_length', isWhole(f['output_length'], 0), 'must be a whole number, 0 or more');
    const size = f['block_size'] ?? DEFAULT_AGENT_BLOCK_TOKENS;
    need('block_size', isWhole(size, 1), 'must be a whole number above 0');
    blockTokens ??= size as number;
    if (size !== blockTokens)
      fail(line, `'block_size' is ${size} but earlier lines use ${blockTokens} (one block size per trace)`);
    const ids = f['hash_ids'];
    need(
      'hash_ids',
      Array.isArray(ids) && ids.every((id) => isWhole(id, 0)),
      'must be a list of whole numbers, 0 or more',
    );
    const blocks = Math.ceil((f['input_length'] as number) / blockTokens);
    if ((ids as unknown[]).length !== blocks)
      fail(
        line,
        `'hash_ids' holds ${(ids as unknown[]).length} ids but input_length ${f['input_length']} needs ${blocks} blocks of ${blockTokens}`,
      );
    need(
      'api',
      (AGENT_APIS as readonly unknown[]).includes(f['api']),
      `must be one of ${AGENT_APIS.join(', ')}`,
    );
    need('tool_calls', isWhole(f['tool_calls'], 0), 'must be a whole number, 0 or more');
    need('tool_results', isWhole(f['tool_results'], 0), 'must be a whole number, 0 or more');
    const model = f['model'];
    need('model', model === undefined || typeof model === 'string', 'must be a string when given');
    builder.add(sessionId as string, {
      turn: f['turn'] as number,
      timestampMs: f['timestamp'] as number,
      waitMs: f['wait_ms'] as number,
      inputLength: f['input_length'] as number,
      outputLength: f['output_length'] as number,
      hashIds: ids as number[],
      api: f['api'] as AgentApi,
      toolCalls: f['tool_calls'] as number,
      toolResults: f['tool_results'] as number,
      model: (model as string | undefined) ?? null,
      line,
    });
  }
  const sessions = builder.sessions();
  if (sessions.length === 0)
    throw new AgentTraceError(`${path}: no turn in it (an agentic trace is JSON lines, one a turn)`);
  return { format: 'tokenmeter', blockTokens: blockTokens ?? DEFAULT_AGENT_BLOCK_TOKENS, sessions };
}

/** A value as a message shows it: JSON, cut to 40 characters. */
export function shown(value: unknown): string {
  const text = value === undefined ? 'nothing' : JSON.stringify(value);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

/** Reads an agentic trace file (a regular file only). */
export async function readAgenticTrace(path: string): Promise<AgentTrace> {
  return parseAgenticTrace(await readTraceText(path), path);
}

/** A trace file's text, or one line saying why it cannot be read. */
export async function readTraceText(path: string): Promise<string> {
  try {
    return await readRegularFile(path);
  } catch (error) {
    throw new AgentTraceError(`${path}: ${fileErrorReason(error)}`, { cause: error });
  }
}
