// The agent replay's figures as a bench run feature (loadgen/feature.ts): its part is the run's per-session
// figures (session-figures.ts), computed from the turns' records; the text report gets the Agent sessions section,
// the result JSON `tokenmeter.agent_sessions`, read back for reports and comparisons. A run that replayed no
// agentic trace has no part. The engine and its pacing are the run's own (loadgen/bench/agent-run.ts).

import { isJsonObject } from '../../src/shared/json-object.js';
import type { RunFeature } from '../feature.js';
import { centre } from '../report/python-format.js';
import type { AgentApi } from '../traces/agent-sessions.js';
import {
  type AgentSessionFigures,
  agentSessionFigures,
  agentSessionFromJson,
  agentSessionJson,
  agentSessionLines,
} from './session-figures.js';

// ---- agent settings ----
// What `bench --dataset-name agentic` takes beyond the dataset (docs/loadgen.md, "Agent traffic"): how sessions
// start (the trace's own starts divided by --replay-speed, a rate of sessions, or N in flight at all times) and
// which protocol the turns use. Recorded waits are divided by --replay-speed too.

export interface AgentSettings {
  /** --session-rate: sessions start at this rate (Poisson, or --burstiness's gamma), not at their recorded times. */
  readonly sessionRate?: number;
  /** --concurrent-sessions: closed loop, this many sessions in flight until the sessions run out. */
  readonly concurrentSessions?: number;
  /** --agent-api: every turn in this protocol instead of the one it was recorded in. */
  readonly api?: AgentApi;
}

// ---- the feature ----

/** Its key under the result JSON's "tokenmeter". */
const KEY = 'agent_sessions';

export const agentSessionsFeature: RunFeature<
  AgentSettings,
  AgentSessionFigures,
  AgentSessionFigures,
  { readonly agent?: AgentSettings }
> = {
  name: 'agent-sessions',
  settingsOf: (run) => run.agent,
  aggregate: (_settings, records) => agentSessionFigures(records.all),
  json: {
    write: (part) => ({ [KEY]: agentSessionJson(part) }),
    read: (result) => {
      const tokenmeter = result['tokenmeter'];
      return isJsonObject(tokenmeter) ? agentSessionFromJson(tokenmeter[KEY]) : undefined;
    },
  },
  report: {
    slot: 'section',
    lines: (part) => [centre(' Agent sessions ', 50, '-'), ...agentSessionLines(part)],
  },
};
