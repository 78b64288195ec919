// Reading the shards of a run back for `tokenmeter merge` (and for a `bench --workers` parent): each shard's
// result file (--save-result) says which shard it was ("shard": "I/N"), the run's settings, where it ran
// (tokenmeter.target.host) and how long its part took; its records file holds the raw per-request records the
// merged figures are computed from. A folder stands for every result file in it (a merge saved there excepted). Files from earlier versions
// (no "shard" key) still merge, each as a shard of its own.

import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileErrorReason } from '../../src/shared/regular-file.js';
import { UserFacingError } from '../../src/shared/user-facing-error.js';
import { loadRun } from '../compare/run-records.js';
import type { RequestRecord } from '../record.js';
import { isResultJson, type LoadedResult, readJsonFile, readResultFile } from '../report/read-result-file.js';
import { numberField, stringField, tokenmeterSection } from '../report/result-fields.js';
import { readTarget } from '../report/run-target.js';
import { parseShard, SHARD_RESULT_KEY, type ShardSpec } from './shard-spec.js';

export interface ShardRun {
  /** The result file it was read from. */
  readonly source: string;
  readonly result: LoadedResult;
  /** Undefined for a result written without --shard (an earlier version, or a whole run). */
  readonly shard?: ShardSpec;
  readonly host: string | null;
  readonly records: RequestRecord[];
  /** Lines of its records file that were not whole records (a torn write, another process's bytes). */
  readonly tornLines: number;
  /** From the shared t = 0 until the shard's last request finished. */
  readonly durationMs: number;
}

async function resultFilesIn(path: string): Promise<string[]> {
  let isFolder: boolean;
  try {
    isFolder = (await stat(path)).isDirectory();
  } catch (error) {
    throw new UserFacingError(`cannot read '${path}': ${fileErrorReason(error)}`, { cause: error });
  }
  if (!isFolder) return [path];
  const names = (await readdir(path)).filter((name) => name.endsWith('.json')).sort();
  const results: string[] = [];
  for (const name of names) {
    const file = join(path, name);
    const json = await readJsonFile(file, 'a benchmark result');
    // A merge saved into the shards' folder is their union, not one more shard.
    if (isResultJson(json) && !('shards' in tokenmeterSection(json))) results.push(file);
  }
  if (results.length === 0)
    throw new UserFacingError(`'${path}' holds no result files; run the shards with --save-result`);
  return results;
}

async function readShard(path: string): Promise<ShardRun> {
  const result = await readResultFile(path);
  const loaded = await loadRun(result);
  if (loaded.records.records === null)
    throw new UserFacingError(`'${path}': ${loaded.records.missing}; merge needs each shard's records`);
  const shardText = stringField(result.json, SHARD_RESULT_KEY);
  const duration = numberField(result.json, 'duration');
  return {
    source: path,
    result,
    ...(shardText === null ? {} : { shard: parseShard(shardText) }),
    host: readTarget(result.json)?.host ?? null,
    records: loaded.records.records,
    tornLines: loaded.records.tornLines ?? 0,
    durationMs: (duration ?? 0) * 1000,
  };
}

/** The shards named by `paths` (result files, or folders of them), in the order given. */
export async function readShardRuns(paths: readonly string[]): Promise<ShardRun[]> {
  const files = (await Promise.all(paths.map(resultFilesIn))).flat();
  return Promise.all(files.map(readShard));
}
