// The union of a run's shards: every shard's raw records in one list, so the merged figures are computed from the
// requests themselves (exact percentiles), never from the shards' summaries. The shards shared one t = 0, so
// their offsets line up as they are and the run lasted as long as its slowest shard. Whatever would make the union
// something other than the one-process run is refused (two shards of different splits, the same shard twice, one
// request in two shards); a missing shard is said, not refused, since the part that ran is still worth reading.

import { UserFacingError } from '../../src/shared/user-facing-error.js';
import type { RequestRecord } from '../record.js';
import { rateField, stringField } from '../report/result-fields.js';
import type { ShardRun } from './shard-results.js';
import { shardText } from './shard-spec.js';

export interface MergedShards {
  /** Every shard's records, in schedule order. */
  readonly records: RequestRecord[];
  readonly durationMs: number;
  /** Shards absent from a split, and the like; one line each. */
  readonly notes: string[];
}

function shardName(run: ShardRun): string {
  return run.shard === undefined ? run.source : `shard ${shardText(run.shard)} (${run.source})`;
}

/** The run's settings must be one run's: the same model, rate, burstiness and number of prompts. */
function checkSameRun(runs: readonly ShardRun[]): void {
  const first = runs[0];
  if (first === undefined) return;
  const facts = (run: ShardRun): string =>
    JSON.stringify([
      stringField(run.result.json, 'model_id'),
      rateField(run.result.json, 'request_rate'),
      rateField(run.result.json, 'burstiness'),
      run.result.json['num_prompts'] ?? null,
    ]);
  for (const run of runs) {
    if (facts(run) !== facts(first))
      throw new UserFacingError(
        `${shardName(run)} and ${shardName(first)} are not shards of one run: model, request rate, burstiness or number of prompts differ`,
      );
  }
}

function checkSplit(runs: readonly ShardRun[]): string[] {
  const split = runs.filter((run) => run.shard !== undefined);
  if (split.length === 0) return [];
  const count = split[0]?.shard?.count ?? 0;
  const seen = new Map<number, ShardRun>();
  for (const run of split) {
    const shard = run.shard;
    if (shard === undefined) continue;
    if (shard.count !== count)
      throw new UserFacingError(
        `${shardName(run)} is from a run split ${shard.count} ways, the others ${count}`,
      );
    const twin = seen.get(shard.index);
    if (twin !== undefined)
      throw new UserFacingError(`${shardName(run)} and ${shardName(twin)} are the same shard`);
    seen.set(shard.index, run);
  }
  const missing = Array.from({ length: count }, (_, i) => i).filter((i) => !seen.has(i));
  return missing.length === 0
    ? []
    : [
        `shard ${missing.map((i) => `${i}/${count}`).join(', ')} missing: the figures cover ${seen.size} of ${count} shards`,
      ];
}

export function mergeShards(runs: readonly ShardRun[]): MergedShards {
  if (runs.length === 0)
    throw new UserFacingError("nothing to merge: give the shards' result files or their folder");
  checkSameRun(runs);
  const notes = checkSplit(runs);
  const records: RequestRecord[] = [];
  const owner = new Map<number, ShardRun>();
  for (const run of runs) {
    for (const record of run.records) {
      const other = owner.get(record.index);
      if (other !== undefined)
        throw new UserFacingError(
          `request #${record.index} is in both ${shardName(other)} and ${shardName(run)}: were they given the same --shard?`,
        );
      owner.set(record.index, run);
      records.push(record);
    }
  }
  records.sort((a, b) => a.index - b.index);
  return { records, durationMs: Math.max(...runs.map((run) => run.durationMs)), notes };
}
