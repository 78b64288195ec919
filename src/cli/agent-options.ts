// bench's flags for an agentic trace replay (--dataset-name agentic or aiperf_sessions; docs/loadgen.md, "Agent
// traffic"), and the settings they make, refused where a replay of sessions cannot honour the rest of the command
// line.

import type { AgentSettings } from '../../loadgen/agent/agent-feature.js';
import { AGENT_APIS } from '../../loadgen/traces/agent-sessions.js';
import type { OptionSpec, OptionValues } from '../shared/option-schema.js';
import { UsageError } from '../shared/user-facing-error.js';

/** The protocols a whole replay may be sent in (--agent-api). */
const REPLAY_APIS = AGENT_APIS.filter((api) => api !== 'completions') as readonly (
  | 'chat'
  | 'responses'
  | 'messages'
)[];

export const AGENT_OPTIONS = [
  {
    name: 'session-rate',
    type: 'number',
    min: 0.000_001,
    valueName: 'SPS',
    help: 'agentic: start sessions at this rate per second (Poisson; see --burstiness) instead of their recorded starts',
  },
  {
    name: 'concurrent-sessions',
    type: 'integer',
    min: 1,
    max: 4096,
    valueName: 'N',
    help: 'agentic: keep N sessions in flight, the next starting when one ends (closed loop)',
  },
  {
    name: 'agent-api',
    type: 'string',
    choices: REPLAY_APIS,
    help: 'agentic: send every turn in this protocol (chat, responses, messages) instead of the one it was recorded in',
  },
] as const satisfies readonly OptionSpec[];

/** The agentic datasets: those whose turns the agent replay sends. */
export const AGENTIC_DATASETS: readonly string[] = ['agentic', 'aiperf_sessions'];

/** The agentic flags' settings; undefined for any other dataset (whose use of the flags is then refused). */
export function agentSettingsOf(
  o: OptionValues<typeof AGENT_OPTIONS>,
  run: {
    datasetName: string;
    requestRate: number;
    sharded: boolean;
    duration: boolean;
    multiTurn: boolean;
    cancellation: boolean;
  },
): AgentSettings | undefined {
  const given = AGENT_OPTIONS.map((spec) => spec.name).filter((name) => o[name] !== undefined);
  if (!AGENTIC_DATASETS.includes(run.datasetName)) {
    if (given.length > 0)
      throw new UsageError(`--${given[0]} needs --dataset-name agentic (or aiperf_sessions)`);
    return undefined;
  }
  const refuse = (why: string): never => {
    throw new UsageError(`--dataset-name ${run.datasetName} ${why}`);
  };
  if (Number.isFinite(run.requestRate))
    refuse('starts sessions, not requests: use --session-rate instead of --request-rate');
  if (run.sharded) refuse('cannot be split across shards or workers yet: run it in one process');
  if (run.duration) refuse('is bounded by its sessions, not by time: drop --duration');
  if (run.multiTurn) refuse('replays its own sessions: drop --multi-turn');
  if (run.cancellation) refuse('does not cancel turns yet: drop --request-cancellation-rate');
  const rate = o['session-rate'];
  const concurrent = o['concurrent-sessions'];
  if (rate !== undefined && concurrent !== undefined)
    refuse('takes --session-rate or --concurrent-sessions, not both');
  const api = o['agent-api'];
  return {
    ...(rate === undefined ? {} : { sessionRate: rate }),
    ...(concurrent === undefined ? {} : { concurrentSessions: concurrent }),
    ...(api === undefined ? {} : { api }),
  };
}
