// What `bench --dataset-name agentic` takes beyond the dataset (docs/loadgen.md, "Agent traffic"): how sessions
// start (the trace's own starts divided by --replay-speed, a rate of sessions, or N in flight at all times) and
// which protocol the turns use. Recorded waits are divided by --replay-speed too.

import type { AgentApi } from '../traces/agent-sessions.js';

export interface AgentSettings {
  /** --session-rate: sessions start at this rate (Poisson, or --burstiness's gamma), not at their recorded times. */
  readonly sessionRate?: number;
  /** --concurrent-sessions: closed loop, this many sessions in flight until the sessions run out. */
  readonly concurrentSessions?: number;
  /** --agent-api: every turn in this protocol instead of the one it was recorded in. */
  readonly api?: AgentApi;
}
