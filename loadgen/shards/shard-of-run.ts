// A shard's part of a prepared run: its requests and their intended times (positions I, I+N... of the whole
// schedule, offsets unchanged so every shard shares one t = 0), and its share of --max-concurrency. Without a
// shard, the run as it is.

import type { PreparedRequest } from '../engine/engine.js';
import { concurrencyShare, type ShardSpec, takeShard } from './shard-spec.js';

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
