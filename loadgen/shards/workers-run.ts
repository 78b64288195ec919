// `bench --workers N` from the parent's side: the run split into N shards, each sent by a worker process
// (spawn-workers.ts) that saves its result and records in a scratch folder; then the shards merged
// (merge-shards.ts) and turned into the one run's outcome, reported, checked against --threshold and saved exactly
// as a one-process run is (loadgen/bench/bench-workflow.ts), with each worker's schedule lag added under the report.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UserFacingError } from '../../src/shared/user-facing-error.js';
import { aggregateRun, mergedSeen, runChecks } from '../bench/aggregate.js';
import { loadgenSummaryFor } from '../bench/bench-report.js';
import type { PreparedRun, Say } from '../bench/prepare-run.js';
import { writeRecordsFile } from '../bench/records-file.js';
import { requestCount } from '../bench/run-bench.js';
import type { BenchRunOutcome } from '../bench/save-result.js';
import { describeRun, recordsPathFor, resultPath } from '../bench/save-result.js';
import type { BenchSettings } from '../bench/settings.js';
import { formatThresholdChecks } from '../thresholds/format-checks.js';
import { mergeShards } from './merge-shards.js';
import { readShardRuns } from './shard-results.js';
import { formatShardTable, shardFigures } from './shard-table.js';
import { runWorkers, type WorkerSpawn } from './spawn-workers.js';

/** Where worker i saves, inside the scratch folder. */
export interface WorkerFiles {
  readonly resultFilename: string;
  readonly recordsFile: string;
}

export function workerFiles(folder: string, index: number): WorkerFiles {
  return { resultFilename: `shard-${index}.json`, recordsFile: join(folder, `shard-${index}.records.jsonl`) };
}

export interface WorkersRunInput {
  readonly settings: BenchSettings;
  readonly prepared: PreparedRun;
  /** How many workers. */
  readonly count: number;
  /** Worker i's command line, given its scratch folder and files. */
  readonly argsFor: (index: number, folder: string, files: WorkerFiles) => string[];
  readonly cliPath: string;
  readonly env: NodeJS.ProcessEnv;
  readonly startAt: WorkerSpawn['startAt'];
  readonly signal: AbortSignal;
  readonly say: Say;
}

export async function workersRun(input: WorkersRunInput): Promise<BenchRunOutcome> {
  const { settings, prepared } = input;
  const run = describeRun(
    settings,
    prepared.modelId,
    prepared.tokenizer.name,
    new Date(),
    prepared.dataset.requests.length,
  );
  const path = resultPath(settings, run);
  const folder = mkdtempSync(join(tmpdir(), 'tokenmeter-workers-'));
  try {
    const exits = await runWorkers({
      cliPath: input.cliPath,
      count: input.count,
      argsFor: (i) => input.argsFor(i, folder, workerFiles(folder, i)),
      env: input.env,
      startAt: input.startAt,
      signal: input.signal,
    });
    const files = exits.map((exit) => join(folder, workerFiles(folder, exit.index).resultFilename));
    const runs = await readShardRuns(files).catch((error: unknown) => {
      const failed = exits.find((exit) => exit.code !== 0);
      throw failed === undefined
        ? error
        : new UserFacingError(`worker ${failed.index} exited with ${failed.code}: ${failed.lastLines}`);
    });
    // The workers' files are this run's own: anything damaged is refused, unless the run was interrupted.
    const merged = mergeShards(runs, { allowPartial: input.signal.aborted });
    const recordsPath = recordsPathFor(settings, path);
    if (recordsPath !== null) {
      input.say(`records: ${recordsPath}`);
      await writeRecordsFile(recordsPath, merged.records);
    }
    // The shards' features merged, then the figures made as a one-process run's are (loadgen/bench/aggregate.ts).
    const result = aggregateRun(
      {
        records: merged.records,
        startedAtMs: 0,
        durationMs: merged.durationMs,
        tokenizer: prepared.tokenizer,
        dataset: prepared.dataset,
        planned: requestCount(settings, prepared.dataset),
        interrupted: input.signal.aborted,
        recordsPath,
        seen: mergedSeen(runs.map((shard) => shard.result.json)),
      },
      settings,
    );
    const checks = runChecks(result, settings, run);
    const report =
      loadgenSummaryFor(result, settings) +
      formatShardTable(runs.map(shardFigures), merged.notes) +
      formatThresholdChecks(checks);
    return { run, resultPath: path, result, checks, report };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
