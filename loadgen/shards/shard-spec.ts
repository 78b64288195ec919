// Which slice of a run this process sends: `--shard I/N`, or `--shard-count N` with the index from
// JOB_COMPLETION_INDEX (what a Kubernetes Indexed Job sets in each pod). Every shard computes the whole schedule
// from --seed and keeps positions I, I+N, I+2N...; so the union of the shards is exactly the one-process run and
// each shard's rate is the total over N. A --max-concurrency cap is the whole run's, split as evenly as it goes.

import { UsageError } from '../../src/shared/user-facing-error.js';
import type { PreparedRequest } from '../engine/engine.js';

export interface ShardSpec {
  /** 0-based: the first shard is 0/N. */
  readonly index: number;
  readonly count: number;
}

/** The environment variable a Kubernetes Indexed Job sets to the pod's completion index. */
export const JOB_INDEX_ENV = 'JOB_COMPLETION_INDEX';

const WHOLE = /^\d+$/;

function wholeNumber(text: string, what: string): number {
  if (!WHOLE.test(text.trim())) throw new UsageError(`${what} must be a whole number (got '${text}')`);
  return Number(text.trim());
}

function checked(index: number, count: number, what: string): ShardSpec {
  if (count < 1) throw new UsageError(`${what}: the shard count must be at least 1 (got ${count})`);
  if (index >= count)
    throw new UsageError(`${what}: shard index ${index} is out of range; indexes run from 0 to ${count - 1}`);
  return { index, count };
}

/** `I/N` as typed after --shard. */
export function parseShard(text: string): ShardSpec {
  const parts = text.split('/');
  if (parts.length !== 2) throw new UsageError(`--shard must look like I/N, e.g. 0/3 (got '${text}')`);
  const index = wholeNumber(parts[0] as string, '--shard I/N: I');
  const count = wholeNumber(parts[1] as string, '--shard I/N: N');
  return checked(index, count, `--shard ${text}`);
}

/** The shard from the flags: --shard, or --shard-count with JOB_COMPLETION_INDEX; undefined = the whole run. */
export function shardFromFlags(
  shard: string | undefined,
  shardCount: number | undefined,
  env: NodeJS.ProcessEnv,
): ShardSpec | undefined {
  if (shard !== undefined && shardCount !== undefined)
    throw new UsageError('give --shard I/N or --shard-count N (index from $JOB_COMPLETION_INDEX), not both');
  if (shard !== undefined) return parseShard(shard);
  if (shardCount === undefined) return undefined;
  const index = env[JOB_INDEX_ENV];
  if (index === undefined || index === '')
    throw new UsageError(
      `--shard-count needs $${JOB_INDEX_ENV} (set by a Kubernetes Indexed Job); elsewhere use --shard I/N`,
    );
  return checked(wholeNumber(index, `$${JOB_INDEX_ENV}`), shardCount, `--shard-count ${shardCount}`);
}

/** The positions this shard sends: I, I+N, I+2N... of the whole run's. */
export function takeShard<T>(items: readonly T[], shard: ShardSpec): T[] {
  return items.filter((_, position) => position % shard.count === shard.index);
}

/** This shard's part of the run's --max-concurrency: the cap divided as evenly as it goes (the first shards take
 *  the remainder), so the shards together never hold more requests in flight than one process would. */
export function concurrencyShare(cap: number, shard: ShardSpec): number {
  checkConcurrencySplit(cap, shard.count, 'shards');
  return Math.floor(cap / shard.count) + (shard.index < cap % shard.count ? 1 : 0);
}

/** Every shard (or --workers process) needs at least one slot of the cap. */
export function checkConcurrencySplit(
  cap: number | undefined,
  count: number,
  parts: 'shards' | 'workers',
): void {
  if (cap !== undefined && cap < count)
    throw new UsageError(
      `--max-concurrency ${cap} is split across ${count} ${parts}: give at least ${count}`,
    );
}

/** The result file's top-level key naming its shard, `I/N` (shardText). */
export const SHARD_RESULT_KEY = 'shard';

/** `I/N`, as the result file and the merged report show it. */
export function shardText(shard: ShardSpec): string {
  return `${shard.index}/${shard.count}`;
}

// ---- A shard's part of a prepared run ----
// A shard's part of a prepared run: its requests and their intended times (positions I, I+N... of the whole
// schedule, offsets unchanged so every shard shares one t = 0), and its share of --max-concurrency. Without a
// shard, the run as it is.

export interface ShardOfRun {
  readonly requests: PreparedRequest[];
  readonly offsetsMs: number[];
  readonly maxConcurrency: number | undefined;
}

export function shardOfRun(
  requests: PreparedRequest[],
  offsetsMs: number[],
  settings: { readonly shard?: ShardSpec; readonly maxConcurrency?: number },
): ShardOfRun {
  const { shard, maxConcurrency } = settings;
  if (shard === undefined) return { requests, offsetsMs, maxConcurrency };
  return {
    requests: takeShard(requests, shard),
    offsetsMs: takeShard(offsetsMs, shard),
    maxConcurrency: maxConcurrency === undefined ? undefined : concurrencyShare(maxConcurrency, shard),
  };
}
