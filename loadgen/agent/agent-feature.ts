// The agent replay's figures as a bench run feature (loadgen/feature.ts): its part is the run's per-session
// figures (session-figures.ts), computed from the turns' records; the text report gets the Agent sessions section,
// the result JSON `tokenmeter.agent_sessions`, read back for reports and comparisons. A run that replayed no
// agentic trace has no part. The engine and its pacing are the run's own (loadgen/bench/agent-run.ts).

import { isJsonObject } from '../../src/shared/json-object.js';
import type { RunFeature } from '../feature.js';
import { centre } from '../report/python-format.js';
import type { AgentSettings } from './agent-settings.js';
import {
  type AgentSessionFigures,
  agentSessionFigures,
  agentSessionFromJson,
  agentSessionJson,
  agentSessionLines,
} from './session-figures.js';

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
