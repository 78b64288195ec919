// Each shard's own line in a merged report: where it ran, how many requests it sent and how late its scheduler
// was (schedule lag, loadgen/record.ts). The merged figures hide a shard whose machine could not keep its slice
// of the schedule; this table shows it, with the same bound as the client-bottleneck verdict.

import type { JsonValue } from '../../src/shared/json-object.js';
import { percentile } from '../metrics/numpy-stats.js';
import { scheduleLagMs } from '../record.js';
import { centre, fixed2, padRight } from '../report/python-format.js';
import { DEFAULT_VERDICT_THRESHOLDS } from '../report/verdicts.js';
import type { ShardRun } from './shard-results.js';
import { shardText } from './shard-spec.js';

export interface ShardFigures {
  /** `I/N`, or the result file for a result written without --shard. */
  readonly name: string;
  readonly host: string | null;
  readonly requests: number;
  /** Schedule lag over the shard's sent requests (ms); null when it sent none. */
  readonly lagP50Ms: number | null;
  readonly lagP99Ms: number | null;
  readonly lagMaxMs: number | null;
  /** Lag p99 above the client-bottleneck verdict's bound: this shard's figures describe its own machine. */
  readonly behind: boolean;
}

export function shardFigures(run: ShardRun): ShardFigures {
  const lags = run.records.map(scheduleLagMs).filter((lag): lag is number => lag !== null);
  const at = (p: number): number | null => (lags.length === 0 ? null : percentile(lags, p));
  const p99 = at(99);
  return {
    name: run.shard === undefined ? run.source : shardText(run.shard),
    host: run.host,
    requests: run.records.length,
    lagP50Ms: at(50),
    lagP99Ms: p99,
    lagMaxMs: lags.length === 0 ? null : Math.max(...lags),
    behind: p99 !== null && p99 > DEFAULT_VERDICT_THRESHOLDS.scheduleLagP99Ms,
  };
}

const ms = (value: number | null): string => (value === null ? '-' : fixed2(value));

export function formatShardTable(shards: readonly ShardFigures[], notes: readonly string[]): string {
  const lines = [
    centre(' Shards ', 50, '-'),
    `${padRight('shard', 8)} ${padRight('host', 20)} ${padRight('requests', 9)} schedule lag p50 / p99 / max (ms)`,
    ...shards.map(
      (s) =>
        `${padRight(s.name, 8)} ${padRight(s.host ?? '-', 20)} ${padRight(String(s.requests), 9)} ` +
        `${ms(s.lagP50Ms)} / ${ms(s.lagP99Ms)} / ${ms(s.lagMaxMs)}` +
        (s.behind
          ? `  behind schedule (p99 over ${DEFAULT_VERDICT_THRESHOLDS.scheduleLagP99Ms} ms): its machine set the pace`
          : ''),
    ),
    ...notes.map((note) => `Note: ${note}`),
  ];
  return `${lines.join('\n')}\n`;
}

/** Saved under the merged result's `tokenmeter.shards`. */
export function shardsJson(shards: readonly ShardFigures[]): JsonValue {
  return shards.map((s) => ({
    shard: s.name,
    host: s.host,
    requests: s.requests,
    schedule_lag_p50_ms: s.lagP50Ms,
    schedule_lag_p99_ms: s.lagP99Ms,
    schedule_lag_max_ms: s.lagMaxMs,
    behind_schedule: s.behind,
  }));
}
