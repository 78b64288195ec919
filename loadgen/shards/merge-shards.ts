// The union of a run's shards: every shard's raw records in one list, so the merged figures are computed from the
// requests themselves (exact percentiles), never from the shards' summaries. The shards shared one t = 0, so
// their offsets line up as they are and the run lasted as long as its slowest shard. Whatever would make the union
// something other than the one-process run is refused, each in one line: two shards of different splits, the
// same shard twice; and, unless --allow-partial (then each is a note and the rest merges), a missing shard, torn
// lines in a records file, records of another shard in a shard's file, and one request recorded twice.

import { UserFacingError } from '../../src/shared/user-facing-error.js';
import type { RequestRecord } from '../record.js';
import { interruptionNote } from '../report/interruption.js';
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

/** What merge refuses unless told otherwise; with `allowPartial`, each problem is a note and the whole rest merges. */
export interface MergeChecks {
  readonly allowPartial: boolean;
}

/** The one line for a problem, with how to merge anyway. */
const ANYWAY = 'merge refuses it (--allow-partial merges the rest and says so)';

class Problems {
  readonly notes: string[] = [];
  readonly #allow: boolean;
  constructor(allow: boolean) {
    this.#allow = allow;
  }
  /** Refuses, or with --allow-partial keeps `problem` as a note of the merged report. */
  found(problem: string): void {
    if (!this.#allow) throw new UserFacingError(`${problem}: ${ANYWAY}`);
    this.notes.push(problem);
  }
}

/** Missing shards named in the refusal; the rest are counted. */
const NAMED_MISSING_SHARDS = 10;

function checkSplit(runs: readonly ShardRun[], problems: Problems): void {
  const split = runs.filter((run) => run.shard !== undefined);
  if (split.length === 0) return;
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
  // The count is read from the files, whatever they claim (0/1000000000 once took this past 1.5 GB listing the
  // missing): the missing are counted, and only the first few named.
  const missingCount = count - seen.size;
  if (missingCount === 0) return;
  const named: string[] = [];
  for (let i = 0; i < count && named.length < NAMED_MISSING_SHARDS; i++)
    if (!seen.has(i)) named.push(`${i}/${count}`);
  const more = missingCount > named.length ? ` and ${missingCount - named.length} more` : '';
  problems.found(
    `shard ${named.join(', ')}${more} missing: the figures would cover ${seen.size} of ${count} shards`,
  );
}

/** A shard's records that are its own: torn lines and records of another shard are problems (and left out). */
function ownRecords(run: ShardRun, problems: Problems): RequestRecord[] {
  if (run.tornLines > 0)
    problems.found(
      `${shardName(run)}: ${run.tornLines} lines of its records file are torn (not whole records)`,
    );
  const shard = run.shard;
  if (shard === undefined) return run.records;
  const foreign = run.records.filter((r) => r.index % shard.count !== shard.index);
  if (foreign.length === 0) return run.records;
  const first = foreign[0]?.index ?? 0;
  problems.found(
    `${shardName(run)}: ${foreign.length} of its records belong to another shard (request #${first} is shard ${first % shard.count}/${shard.count}'s): did shards share a records file?`,
  );
  return run.records.filter((r) => r.index % shard.count === shard.index);
}

export function mergeShards(runs: readonly ShardRun[], checks: MergeChecks): MergedShards {
  if (runs.length === 0)
    throw new UserFacingError("nothing to merge: give the shards' result files or their folder");
  checkSameRun(runs);
  const problems = new Problems(checks.allowPartial);
  checkSplit(runs, problems);
  // Not refused: the part that ran is still worth reading, and the merged report says it was cut short.
  for (const run of runs) {
    const cut = interruptionNote(run.result.json);
    if (cut !== null) problems.notes.push(`${shardName(run)}: ${cut}`);
  }
  const records: RequestRecord[] = [];
  const owner = new Map<number, ShardRun>();
  for (const run of runs) {
    for (const record of ownRecords(run, problems)) {
      const other = owner.get(record.index);
      if (other !== undefined) {
        problems.found(
          other === run
            ? `request #${record.index} is recorded twice in ${shardName(run)}`
            : `request #${record.index} is in both ${shardName(other)} and ${shardName(run)}: were they given the same --shard?`,
        );
        continue; // --allow-partial: the first record of the request is kept
      }
      owner.set(record.index, run);
      records.push(record);
    }
  }
  records.sort((a, b) => a.index - b.index);
  return { records, durationMs: Math.max(...runs.map((run) => run.durationMs)), notes: problems.notes };
}
