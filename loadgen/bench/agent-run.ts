// bench's side of an agentic trace replay (--dataset-name agentic): the engine, fed by the trace's sessions, with
// an endpoint per protocol on the run's server (the --base-url's path with the other protocol's endpoint, and
// that protocol's key header), the bodies' extra fields as the run's flags give them, and the sessions' starts:
// recorded, at --session-rate, or --concurrent-sessions in flight.

import { BACKEND_OF_FAMILY, backendProtocol, requestHeaders } from '../../src/protocols/backends.js';
import { type ProtocolName, protocolByName } from '../../src/protocols/index.js';
import { AgentReplay } from '../agent/agent-replay.js';
import { needsSessionStarts, turnRequests } from '../agent/agentic-dataset.js';
import { repeatSessions } from '../agent/repeat-sessions.js';
import { ReplayState } from '../agent/session-turns.js';
import { arrivalSchedule } from '../arrivals.js';
import { createAgentSessionEngine } from '../engine/agent-session-engine.js';
import type { Engine, EngineTarget } from '../engine/engine.js';
import type { SessionCounts } from '../engine/session-engine.js';
import type { Tokenizer } from '../tokenizer/tokenizer.js';
import { type AgentApi, DEFAULT_AGENT_BLOCK_TOKENS } from '../traces/agent-sessions.js';
import type { LoadedDataset } from './load-dataset.js';
import type { BenchSettings } from './settings.js';

const FAMILY_OF_API: Readonly<Record<AgentApi, 'chat' | 'responses' | 'messages' | 'completions'>> = {
  chat: 'chat',
  responses: 'responses',
  messages: 'messages',
  completions: 'completions',
};

/** The protocol of a turn whose trace does not say (AIPerf's): the run's backend's. */
const DEFAULT_API: Readonly<Record<ProtocolName, AgentApi>> = {
  'openai-chat': 'chat',
  'openai-responses': 'responses',
  'anthropic-messages': 'messages',
  'openai-completions': 'completions',
};

export interface AgentRun {
  readonly engine: Engine;
  readonly counts: SessionCounts;
  readonly sessions: number;
}

/** Each protocol's endpoint on the run's server: the run's path with its endpoint swapped for the protocol's. */
function targetsOf(settings: BenchSettings): Record<string, EngineTarget> {
  const own = protocolByName(settings.target.protocol).endpoint;
  const path = settings.target.path;
  const base = path.endsWith(own) ? path.slice(0, path.length - own.length) : '/v1/';
  const targets: Record<string, EngineTarget> = {};
  for (const [api, family] of Object.entries(FAMILY_OF_API)) {
    const backend = BACKEND_OF_FAMILY[family];
    const protocol = backendProtocol(backend);
    targets[api] = {
      origin: settings.target.origin,
      path: `${base}${protocol.endpoint}`,
      headers: requestHeaders(backend, settings.apiKey.key, settings.headers),
      protocol: protocol.name,
      ...(settings.insecure === true ? { insecure: true } : {}),
    };
  }
  return targets;
}

/** The trace's sessions cut or repeated to `count` (a sweep level's), started by the load, not their records. */
export function withSessionCount(dataset: LoadedDataset, count: number): LoadedDataset {
  const sessions = repeatSessions(dataset.agentSessions ?? [], count);
  return { ...dataset, agentSessions: sessions, agentStartsMs: null, requests: turnRequests(sessions) };
}

/** The replay's engine for a run of an agentic trace; undefined for any other dataset. */
export function agentRunOf(
  settings: BenchSettings,
  dataset: LoadedDataset,
  model: string,
  tokenizer: Tokenizer,
): AgentRun | undefined {
  const sessions = dataset.agentSessions;
  if (sessions === undefined) return undefined;
  const agent = settings.agent ?? {};
  const payload = settings.payload;
  const state = new ReplayState(
    tokenizer,
    {
      model,
      extra: {
        ...(payload.ignoreEos ? { ignore_eos: true } : {}),
        ...(payload.temperature === undefined ? {} : { temperature: payload.temperature }),
        ...payload.extraBody,
      },
    },
    DEFAULT_API[settings.target.protocol],
    agent.api,
  );
  const speed = settings.dataset.replaySpeed;
  const recorded = dataset.agentStartsMs ?? null;
  if (recorded === null && agent.sessionRate === undefined && agent.concurrentSessions === undefined)
    throw needsSessionStarts(settings.dataset.path ?? '');
  const offsetsMs =
    agent.sessionRate === undefined
      ? (recorded ?? [])
      : arrivalSchedule(sessions.length, {
          requestRate: agent.sessionRate,
          burstiness: settings.burstiness,
          seed: settings.seed,
        }).offsetsMs;
  const counts: SessionCounts = { notSentAfterFailure: 0, notSentAfterCancel: 0, notSentStopped: 0 };
  const engine = createAgentSessionEngine(
    {
      source: new AgentReplay(sessions, dataset.agentBlockTokens ?? DEFAULT_AGENT_BLOCK_TOKENS, state),
      targets: targetsOf(settings),
      timeScale: 1 / speed,
      ...(agent.concurrentSessions === undefined
        ? { offsetsMs }
        : { concurrentSessions: agent.concurrentSessions }),
    },
    counts,
  );
  return { engine, counts, sessions: sessions.length };
}
