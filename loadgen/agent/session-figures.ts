// An agent replay's answers in agent terms (docs/metrics.md, "Agent sessions"): per session, how long it took
// from its first send to its last answer, how many turns it ran, and how much of that time it spent waiting on
// the server (each turn's send to its last token) rather than in its own recorded tool and think time; per run,
// the prefix-cache hits the trace's block ids predict against what the server reported, and how closely the
// replay kept the recorded waits. TTFT by turn index is the sessions table's (loadgen/report/session-turns.ts),
// which every run whose records carry a turn prints.

import type { JsonValue } from '../../src/shared/json-object.js';
import { percentiles } from '../metrics/numpy-stats.js';
import type { RequestRecord } from '../record.js';
import { fixed2, padRight } from '../report/python-format.js';

export interface Spread {
  readonly mean: number;
  readonly p50: number;
  readonly p99: number;
}

export interface AgentSessionFigures {
  /** Sessions with at least one turn sent. */
  readonly sessions: number;
  /** Sessions whose every turn ended ok. */
  readonly completed: number;
  readonly turnsPerSession: { readonly mean: number; readonly max: number };
  /** First send to the last answer's last token, per session, ms. */
  readonly sessionDurationMs: Spread;
  /** Send to last token of each ok turn, ms: the time the agent waited on the server. */
  readonly serverTimePerTurnMs: Spread;
  /** Of all sessions' time, the share spent waiting on the server (the rest: recorded waits, and lag). */
  readonly serverShare: number;
  /** How much later than planned each turn after the first was sent, ms (replay fidelity). */
  readonly waitLateMs: Spread;
  readonly toolCalls: number;
  /** Prompt tokens of the turns sent, by the server's count when it gave one. */
  readonly promptTokens: number;
  readonly expectedCachedTokens: number;
  /** Null when no answer reported cached tokens. */
  readonly reportedCachedTokens: number | null;
}

function spread(values: readonly number[]): Spread {
  if (values.length === 0) return { mean: Number.NaN, p50: Number.NaN, p99: Number.NaN };
  const [p50, p99] = percentiles(values, [50, 99]) as [number, number];
  return { mean: values.reduce((a, b) => a + b, 0) / values.length, p50, p99 };
}

/** Undefined when no record is an agent replay's turn. */
export function agentSessionFigures(records: readonly RequestRecord[]): AgentSessionFigures | undefined {
  const bySession = new Map<string, RequestRecord[]>();
  for (const record of records) {
    if (record.agent === undefined || record.sessionId === undefined) continue;
    const list = bySession.get(record.sessionId) ?? [];
    list.push(record);
    bySession.set(record.sessionId, list);
  }
  if (bySession.size === 0) return undefined;
  const durations: number[] = [];
  const serverTimes: number[] = [];
  const late: number[] = [];
  let serverSum = 0;
  let durationSum = 0;
  let completed = 0;
  let maxTurns = 0;
  let turns = 0;
  let toolCalls = 0;
  let promptTokens = 0;
  let expected = 0;
  let reported = 0;
  let reporting = 0;
  for (const list of bySession.values()) {
    const sent = list.filter((r) => r.sentAtMs !== null);
    if (sent.length === 0) continue;
    const start = Math.min(...sent.map((r) => r.sentAtMs as number));
    const end = Math.max(...sent.map((r) => (r.sentAtMs as number) + (r.lastTokenMs ?? 0)));
    durations.push(end - start);
    durationSum += end - start;
    turns += list.length;
    maxTurns = Math.max(maxTurns, list.length);
    if (list.every((r) => r.outcome === 'ok')) completed++;
    for (const r of list) {
      const agent = r.agent as NonNullable<RequestRecord['agent']>;
      toolCalls += agent.toolCalls;
      promptTokens += r.usagePromptTokens ?? r.promptTokens;
      expected += agent.expectedCachedTokens;
      if (typeof r.cachedPromptTokens === 'number') {
        reported += r.cachedPromptTokens;
        reporting++;
      }
      if (agent.waitedMs !== null) late.push(agent.waitedMs - agent.plannedWaitMs);
      if (r.outcome === 'ok' && r.lastTokenMs !== null) {
        serverTimes.push(r.lastTokenMs);
        serverSum += r.lastTokenMs;
      }
    }
  }
  return {
    sessions: durations.length,
    completed,
    turnsPerSession: { mean: turns / Math.max(1, durations.length), max: maxTurns },
    sessionDurationMs: spread(durations),
    serverTimePerTurnMs: spread(serverTimes),
    serverShare: durationSum > 0 ? serverSum / durationSum : Number.NaN,
    waitLateMs: spread(late),
    toolCalls,
    promptTokens,
    expectedCachedTokens: expected,
    reportedCachedTokens: reporting === 0 ? null : reported,
  };
}

const WIDTH = 40;

function row(label: string, value: string): string {
  return `${padRight(label, WIDTH)} ${value}`;
}

function ms(value: number): string {
  return Number.isNaN(value) ? '-' : fixed2(value);
}

function share(part: number, whole: number): string {
  return whole > 0 ? `${((100 * part) / whole).toFixed(1)}% of prompt tokens` : '-';
}

/** The text report's section. */
export function agentSessionLines(f: AgentSessionFigures): string[] {
  return [
    row('Sessions (completed / replayed):', `${f.completed} / ${f.sessions}`),
    row('Turns per session (mean / max):', `${f.turnsPerSession.mean.toFixed(2)} / ${f.turnsPerSession.max}`),
    row(
      'Session duration (ms, p50 / p99):',
      `${ms(f.sessionDurationMs.p50)} / ${ms(f.sessionDurationMs.p99)}`,
    ),
    row(
      'Server time per turn (ms, p50 / p99):',
      `${ms(f.serverTimePerTurnMs.p50)} / ${ms(f.serverTimePerTurnMs.p99)}`,
    ),
    row(
      'Session time waiting on the server:',
      Number.isNaN(f.serverShare) ? '-' : `${(100 * f.serverShare).toFixed(1)}%`,
    ),
    row('Tool calls answered:', String(f.toolCalls)),
    row('Wait lateness (ms, p50 / p99):', `${ms(f.waitLateMs.p50)} / ${ms(f.waitLateMs.p99)}`),
    row(
      'Cached tokens expected (block ids):',
      `${f.expectedCachedTokens} (${share(f.expectedCachedTokens, f.promptTokens)})`,
    ),
    row(
      'Cached tokens reported (server):',
      f.reportedCachedTokens === null
        ? 'none reported'
        : `${f.reportedCachedTokens} (${share(f.reportedCachedTokens, f.promptTokens)})`,
    ),
  ];
}

/** `tokenmeter.agent_sessions` in the result JSON (NaN saved as null). */
export function agentSessionJson(f: AgentSessionFigures): Record<string, JsonValue> {
  const value = (n: number): number | null => (Number.isNaN(n) ? null : n);
  const spreadJson = (s: Spread): Record<string, JsonValue> => ({
    mean: value(s.mean),
    p50: value(s.p50),
    p99: value(s.p99),
  });
  return {
    sessions: f.sessions,
    completed_sessions: f.completed,
    mean_turns_per_session: f.turnsPerSession.mean,
    max_turns_per_session: f.turnsPerSession.max,
    session_duration_ms: spreadJson(f.sessionDurationMs),
    server_time_per_turn_ms: spreadJson(f.serverTimePerTurnMs),
    server_time_share: value(f.serverShare),
    wait_late_ms: spreadJson(f.waitLateMs),
    tool_calls: f.toolCalls,
    prompt_tokens: f.promptTokens,
    expected_cached_tokens: f.expectedCachedTokens,
    reported_cached_tokens: f.reportedCachedTokens,
  };
}

/** Reads `agent_sessions` back from a saved result (report, compare); undefined when absent. */
export function agentSessionFromJson(value: unknown): AgentSessionFigures | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const o = value as Record<string, unknown>;
  const num = (v: unknown): number => (typeof v === 'number' ? v : Number.NaN);
  const spreadOf = (v: unknown): Spread => {
    const s = (typeof v === 'object' && v !== null ? v : {}) as Record<string, unknown>;
    return { mean: num(s['mean']), p50: num(s['p50']), p99: num(s['p99']) };
  };
  if (typeof o['sessions'] !== 'number') return undefined;
  return {
    sessions: o['sessions'],
    completed: num(o['completed_sessions']),
    turnsPerSession: { mean: num(o['mean_turns_per_session']), max: num(o['max_turns_per_session']) },
    sessionDurationMs: spreadOf(o['session_duration_ms']),
    serverTimePerTurnMs: spreadOf(o['server_time_per_turn_ms']),
    serverShare: num(o['server_time_share']),
    waitLateMs: spreadOf(o['wait_late_ms']),
    toolCalls: num(o['tool_calls']),
    promptTokens: num(o['prompt_tokens']),
    expectedCachedTokens: num(o['expected_cached_tokens']),
    reportedCachedTokens:
      typeof o['reported_cached_tokens'] === 'number' ? o['reported_cached_tokens'] : null,
  };
}
