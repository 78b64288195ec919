// `bench --dataset-name agentic` (tokenmeter's agentic trace, loadgen/traces/agentic-trace.ts) and
// `--dataset-name aiperf_sessions` (AIPerf's Mooncake trace with sessions, aiperf-session-trace.ts) read for a
// run. The run's requests are the turns, session after session, as placeholders: a turn's body is built during
// the run from the answers before it (session-turns.ts), so only its lengths are known beforehand. The sessions'
// recorded starts, divided by --replay-speed, are their schedule unless --session-rate or --concurrent-sessions
// replaces it; a trace without start times needs one of those.

import type { SampleRequest } from '../datasets/sample-request.js';
import { type AgentSession, type AgentTrace, AgentTraceError } from '../traces/agent-sessions.js';
import { readAgenticTrace } from '../traces/agentic-trace.js';
import { readAiperfSessionTrace } from '../traces/aiperf-session-trace.js';
import { checkToolAnswers } from './agent-replay.js';
import { repeatSessions } from './repeat-sessions.js';

export interface AgenticDataset {
  readonly sessions: readonly AgentSession[];
  readonly blockTokens: number;
  /** One per turn, session after session. */
  readonly requests: SampleRequest[];
  /** Each session's recorded start divided by the replay speed, ms; null when the trace has no start times. */
  readonly offsetsMs: number[] | null;
  readonly notes: string[];
}

export interface AgenticOptions {
  readonly path: string;
  readonly format: 'tokenmeter' | 'aiperf';
  /** AIPerf's traces do not say their block size (512 unless told). */
  readonly blockTokens?: number;
  /** At most this many sessions (bench's --num-prompts): the trace's first. */
  readonly maxSessions?: number;
  /** Exactly this many: the trace's, cut or repeated (repeatSessions), for a load that needs more (a sweep). */
  readonly sessions?: number;
  readonly speed: number;
}

export async function loadAgenticTrace(options: AgenticOptions): Promise<AgenticDataset> {
  const trace: AgentTrace =
    options.format === 'tokenmeter'
      ? await readAgenticTrace(options.path)
      : await readAiperfSessionTrace(options.path, options.blockTokens);
  checkToolAnswers(trace, options.path);
  const sessions =
    options.sessions !== undefined
      ? repeatSessions(trace.sessions, options.sessions)
      : trace.sessions.slice(0, options.maxSessions ?? trace.sessions.length);
  const notes: string[] = [];
  if (sessions.length > trace.sessions.length)
    notes.push(
      `agentic: the trace's ${trace.sessions.length} sessions repeated to ${sessions.length} (repeats share what the trace's sessions share, not their own text)`,
    );
  const requests = turnRequests(sessions);
  return {
    sessions,
    blockTokens: trace.blockTokens,
    requests,
    offsetsMs: startsOf(trace, sessions, options),
    notes,
  };
}

/** The run's requests for these sessions: one placeholder per turn, session after session. */
export function turnRequests(sessions: readonly AgentSession[]): SampleRequest[] {
  return sessions.flatMap((session) =>
    session.turns.map(
      (turn): SampleRequest => ({
        prompt: '',
        promptTokens: turn.inputLength,
        outputTokens: turn.outputLength,
        sourceId: `${session.id}:${turn.turn}`,
      }),
    ),
  );
}

/** The sessions' starts, a repeat one recorded span after the last; null when the trace gives none. */
function startsOf(
  trace: AgentTrace,
  sessions: readonly AgentSession[],
  options: AgenticOptions,
): number[] | null {
  const starts = trace.sessions.map((s) => s.startMs);
  if (starts.some((start) => start === null)) return null;
  const first = Math.min(...(starts as number[]));
  const span = Math.max(...(starts as number[])) - first;
  return sessions.map((_, i) => {
    const original = starts[i % starts.length] as number;
    const repeat = Math.floor(i / starts.length);
    return (original - first + repeat * span) / options.speed;
  });
}

/** The one line for a trace whose sessions have no start times and a run that gives them none. */
export function needsSessionStarts(path: string): AgentTraceError {
  return new AgentTraceError(
    `${path}: its sessions have no start times: start them with --session-rate or --concurrent-sessions`,
  );
}
