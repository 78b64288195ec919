// Agentic traces written by the tests (the contract's JSONL, docs/loadgen.md "Agent traffic"), and a direct run
// of the agent replay engine against a server, in-process so records and the simulator's truth share one clock.

import { REPLAY_TOOL } from '../../../loadgen/agent/agent-bodies.js';
import { AgentReplay } from '../../../loadgen/agent/agent-replay.js';
import { ReplayState } from '../../../loadgen/agent/session-turns.js';
import { createAgentSessionEngine } from '../../../loadgen/engine/agent-session-engine.js';
import type { EngineTarget } from '../../../loadgen/engine/engine.js';
import type { SessionCounts } from '../../../loadgen/engine/session-engine.js';
import type { RequestRecord } from '../../../loadgen/record.js';
import { builtinTokenizer } from '../../../loadgen/tokenizer/tokenizer.js';
import type { AgentApi } from '../../../loadgen/traces/agent-sessions.js';
import { parseAgenticTrace } from '../../../loadgen/traces/agentic-trace.js';
import { estimateTokens } from '../../../src/shared/token-estimate.js';
import { DEFAULT_MODEL_NAME } from '../../../src/sim/config.js';

/** What the simulator answers a call of REPLAY_TOOL with, in tokens: its name, then its one-enum arguments. */
export const TOOL_CALL_TOKENS =
  1 + estimateTokens(JSON.stringify({ step: REPLAY_TOOL.parameters.properties.step.enum[0] }));

export interface TraceShape {
  readonly sessions: number;
  readonly turns: number;
  readonly blockSize: number;
  /** Leading blocks every session's first turn shares (an agent's system prompt and tools). */
  readonly sharedBlocks: number;
  /** Tokens each turn adds beyond the previous prompt and answer. */
  readonly growth: number;
  readonly waitMs: number;
  /** Output tokens of the last turn (the others call a tool). */
  readonly finalOutput: number;
  readonly gapMs: number;
}

/**
 * A trace of `sessions` sessions, the protocols in turn, each of `turns` turns that extend the last: turns before
 * the last call the tool once, the last answers in text. Block ids are numbered as an exporter numbers them.
 */
export function writeTrace(shape: TraceShape): string {
  const apis: AgentApi[] = ['chat', 'responses', 'messages'];
  const lines: string[] = [];
  let nextId = shape.sharedBlocks;
  for (let s = 0; s < shape.sessions; s++) {
    let ids: number[] = [];
    let input = shape.sharedBlocks * shape.blockSize + 40 + s;
    let output = 0;
    for (let k = 0; k < shape.turns; k++) {
      // A turn keeps the previous prompt's full blocks; its partial last block grows into a new one.
      ids =
        k === 0
          ? Array.from({ length: shape.sharedBlocks }, (_, i) => i)
          : ids.slice(0, Math.floor(input / shape.blockSize));
      if (k > 0) input += output + shape.growth;
      while (ids.length < Math.ceil(input / shape.blockSize)) ids.push(nextId++);
      const last = k === shape.turns - 1;
      output = last ? shape.finalOutput : TOOL_CALL_TOKENS;
      lines.push(
        JSON.stringify({
          session_id: `s${String(s).padStart(3, '0')}`,
          turn: k,
          timestamp: s * shape.gapMs + k * (shape.waitMs + 50),
          wait_ms: k === 0 ? 0 : shape.waitMs,
          input_length: input,
          output_length: output,
          hash_ids: ids,
          block_size: shape.blockSize,
          api: apis[s % apis.length],
          tool_calls: last ? 0 : 1,
          tool_results: k === 0 ? 0 : 1,
        }),
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

export const TARGETS = (origin: string): Record<AgentApi, EngineTarget> => {
  const target = (path: string, protocol: EngineTarget['protocol']): EngineTarget => ({
    origin,
    path,
    headers: { 'content-type': 'application/json' },
    protocol,
  });
  return {
    chat: target('/v1/chat/completions', 'openai-chat'),
    responses: target('/v1/responses', 'openai-responses'),
    messages: target('/v1/messages', 'anthropic-messages'),
    completions: target('/v1/completions', 'openai-completions'),
  };
};

export interface ReplayRun {
  readonly records: RequestRecord[];
  readonly counts: SessionCounts;
  readonly durationMs: number;
  /** performance.now() of the run's t = 0. */
  readonly startedAtMs: number;
}

export interface ReplayOptions {
  readonly timeScale?: number;
  readonly concurrentSessions?: number;
  readonly offsetsMs?: readonly number[];
}

/** Replays `traceText` against `origin` with the engine alone (no bench around it). */
export async function replay(
  origin: string,
  traceText: string,
  options: ReplayOptions = {},
): Promise<ReplayRun> {
  const trace = parseAgenticTrace(traceText, 'trace.jsonl');
  const state = new ReplayState(
    builtinTokenizer,
    {
      model: DEFAULT_MODEL_NAME,
      extra: { ignore_eos: true, temperature: 0 },
    },
    'chat',
  );
  const source = new AgentReplay(trace.sessions, trace.blockTokens, state);
  const counts: SessionCounts = { notSentAfterFailure: 0, notSentAfterCancel: 0, notSentStopped: 0 };
  const engine = createAgentSessionEngine(
    {
      source,
      targets: TARGETS(origin),
      timeScale: options.timeScale ?? 1,
      ...(options.concurrentSessions === undefined ? {} : { concurrentSessions: options.concurrentSessions }),
      ...(options.offsetsMs === undefined ? {} : { offsetsMs: options.offsetsMs }),
    },
    counts,
  );
  const records: RequestRecord[] = [];
  const result = await engine.run({
    target: TARGETS(origin)['chat'] as EngineTarget,
    requests: [],
    tokenizer: builtinTokenizer,
    keepText: false,
    idleTimeoutMs: 10_000,
    errorBodyBytes: 2048,
    onRecord: (record) => records.push(record),
    signal: new AbortController().signal,
  });
  records.sort((a, b) => a.index - b.index);
  return { records, counts, durationMs: result.durationMs, startedAtMs: result.startedAtMs };
}
