// `bench --multi-turn`'s own figures: TTFT and E2E split by turn number, because with sessions the turns are not
// alike. Turn k carries k-1 earlier exchanges, so its prompt grows, and on a server with a prefix cache its
// prefill shrinks to the new part: the per-turn TTFT is where prefix caching shows. Successful turns only, as
// vLLM's figures are (E2E is vLLM's E2EL: to the last token). Printed after the extras; saved as
// `tokenmeter.sessions` in the result JSON. The cached tokens column (the server's own count, from usage) says how
// much of each turn's prompt its prefix cache served.

import type { JsonValue } from '../../src/shared/json-object.js';
import type { SessionRunCounts } from '../engine/session-engine.js';
import type { RunFeature } from '../feature.js';
import { percentiles } from '../metrics/numpy-stats.js';
import type { RequestRecord } from '../record.js';
import { centre, fixed2, padRight } from './python-format.js';

export interface TurnFigures {
  readonly turn: number;
  readonly requests: number;
  readonly ok: number;
  readonly meanPromptTokens: number;
  /** Mean of the prompt tokens the server read from its prefix cache, over the turn's requests that said; NaN when none did. */
  readonly meanCachedTokens: number;
  /** p50 and p99 over the turn's successful requests; NaN when none succeeded. */
  readonly ttftMs: readonly [number, number];
  readonly e2eMs: readonly [number, number];
}

/** One row per turn number present, in order; empty when no record belongs to a session. */
export function turnFigures(records: readonly RequestRecord[]): TurnFigures[] {
  const byTurn = new Map<number, RequestRecord[]>();
  for (const record of records) {
    if (record.turn === undefined) continue;
    const list = byTurn.get(record.turn) ?? [];
    list.push(record);
    byTurn.set(record.turn, list);
  }
  return [...byTurn.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([turn, list]) => {
      const ok = list.filter((r) => r.outcome === 'ok');
      const numbers = (pick: (r: RequestRecord) => number | null): number[] =>
        ok.map(pick).filter((v): v is number => v !== null);
      const [ttft50, ttft99] = percentiles(
        numbers((r) => r.ttftMs),
        [50, 99],
      ) as [number, number];
      const [e2e50, e2e99] = percentiles(
        numbers((r) => r.lastTokenMs),
        [50, 99],
      ) as [number, number];
      return {
        turn,
        requests: list.length,
        ok: ok.length,
        meanPromptTokens: list.reduce((sum, r) => sum + r.promptTokens, 0) / list.length,
        meanCachedTokens: mean(
          list.map((r) => r.cachedPromptTokens).filter((v): v is number => typeof v === 'number'),
        ),
        ttftMs: [ttft50, ttft99],
        e2eMs: [e2e50, e2e99],
      };
    });
}

function mean(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((a, b) => a + b, 0) / values.length;
}

function ms(value: number): string {
  return Number.isNaN(value) ? '-' : fixed2(value);
}

export function formatSessionsSection(turns: readonly TurnFigures[], counts: SessionRunCounts): string[] {
  const notSent = counts.notSentAfterFailure + counts.notSentAfterCancel + counts.notSentStopped;
  const lines = [
    centre(` Sessions (${counts.from ?? '--multi-turn'}) `, 50, '-'),
    `${padRight('Sessions:', 40)} ${counts.sessions}`,
    `${padRight('Turns sent / planned:', 40)} ${counts.turnsPlanned - notSent} / ${counts.turnsPlanned}`,
  ];
  if (counts.notSentAfterFailure > 0)
    lines.push(`${padRight('Not sent (earlier turn failed):', 40)} ${counts.notSentAfterFailure}`);
  if (counts.notSentAfterCancel > 0)
    lines.push(`${padRight('Not sent (earlier turn cancelled):', 40)} ${counts.notSentAfterCancel}`);
  if (counts.notSentStopped > 0)
    lines.push(`${padRight('Not sent (run stopped):', 40)} ${counts.notSentStopped}`);
  lines.push('Turn  ok/sent  prompt tok  cached tok  TTFT p50  TTFT p99  E2E p50  E2E p99 (ms)');
  for (const t of turns) {
    lines.push(
      [
        String(t.turn).padStart(4),
        `${t.ok}/${t.requests}`.padStart(8),
        t.meanPromptTokens.toFixed(0).padStart(11),
        (Number.isNaN(t.meanCachedTokens) ? '-' : t.meanCachedTokens.toFixed(0)).padStart(11),
        ms(t.ttftMs[0]).padStart(9),
        ms(t.ttftMs[1]).padStart(9),
        ms(t.e2eMs[0]).padStart(8),
        ms(t.e2eMs[1]).padStart(8),
      ].join(' '),
    );
  }
  return lines;
}

/** `tokenmeter.sessions` in the result JSON (NaN percentiles saved as null). */
export function sessionsResultKeys(
  turns: readonly TurnFigures[],
  counts: SessionRunCounts,
): Record<string, JsonValue> {
  const value = (n: number): number | null => (Number.isNaN(n) ? null : n);
  return {
    sessions: {
      sessions: counts.sessions,
      turns_planned: counts.turnsPlanned,
      turns_not_sent_after_failure: counts.notSentAfterFailure,
      turns_not_sent_after_cancel: counts.notSentAfterCancel,
      turns_not_sent_stopped: counts.notSentStopped,
      turns: turns.map((t) => ({
        turn: t.turn,
        requests: t.requests,
        completed: t.ok,
        mean_prompt_tokens: t.meanPromptTokens,
        mean_cached_tokens: value(t.meanCachedTokens),
        p50_ttft_ms: value(t.ttftMs[0]),
        p99_ttft_ms: value(t.ttftMs[1]),
        p50_e2el_ms: value(t.e2eMs[0]),
        p99_e2el_ms: value(t.e2eMs[1]),
      })),
    },
  };
}

/** A --multi-turn run's sessions: what became of them and each turn's figures. */
export interface RunSessions {
  readonly counts: SessionRunCounts;
  readonly turns: readonly TurnFigures[];
}

/** --multi-turn as a run feature (loadgen/feature.ts). The session engine is the run's own engine, so the run
 *  hands over its counts as what this feature saw; the turns are figured from the records. */
export const sessionsFeature: RunFeature<
  unknown,
  RunSessions,
  SessionRunCounts,
  { readonly sessions?: unknown }
> = {
  name: 'sessions',
  settingsOf: (run) => run.sessions,
  aggregate: (_settings, records, counts) =>
    counts === undefined ? undefined : { counts, turns: turnFigures(records.all) },
  json: { write: (part) => sessionsResultKeys(part.turns, part.counts) },
  report: { slot: 'section', lines: (part) => formatSessionsSection(part.turns, part.counts) },
};
