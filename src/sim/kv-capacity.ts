// How many tokens the KV cache holds, decided once at start, the way vLLM decides it after profiling memory:
//   --kv-cache-tokens N                  N, rounded down to whole blocks (vLLM's --kv-cache-memory, in tokens)
//   --gpu-memory-utilization F           (F x gpuMemoryGiB - modelWeightsGiB) x 2^30 / kvBytesPerToken
//   neither                              maxNumSeqs x maxModelLen: every seat can hold a full context, so memory
//                                        never binds and the simulator behaves as it did before it had a KV model
// and, like vLLM, it refuses to start when one sequence of --max-model-len tokens cannot fit.
import { UserFacingError } from '../shared/user-facing-error.js';
import { BLOCK_SIZE, blocksFor } from './prompt-blocks.js';

export type KvCapacitySource = 'kv-cache-tokens' | 'gpu-memory-utilization' | 'seats';

export interface KvCapacity {
  readonly blocks: number;
  readonly tokens: number;
  readonly source: KvCapacitySource;
}

const GIB = 2 ** 30;

/** What the capacity is decided from: the simulator's configuration (config.ts checks it with this very rule). */
export interface KvCapacityInput {
  readonly kv: {
    readonly kvCacheTokens: number;
    readonly gpuMemoryUtilization: number;
    readonly gpuMemoryGiB: number;
    readonly modelWeightsGiB: number;
    readonly kvBytesPerToken: number;
  };
  readonly timing: { readonly maxNumSeqs: number; readonly maxModelLen: number };
}

export function kvCapacity(config: KvCapacityInput): KvCapacity {
  const { kv, timing } = config;
  let blocks: number;
  let source: KvCapacitySource;
  if (kv.kvCacheTokens > 0) {
    blocks = Math.floor(kv.kvCacheTokens / BLOCK_SIZE);
    source = 'kv-cache-tokens';
  } else if (kv.gpuMemoryUtilization > 0) {
    const kvBytes = (kv.gpuMemoryUtilization * kv.gpuMemoryGiB - kv.modelWeightsGiB) * GIB;
    blocks = Math.floor(Math.max(0, kvBytes) / kv.kvBytesPerToken / BLOCK_SIZE);
    source = 'gpu-memory-utilization';
    if (blocks <= 0) {
      throw new UserFacingError(
        `No available memory for the cache blocks: ${kv.gpuMemoryUtilization} x ${kv.gpuMemoryGiB} GiB leaves nothing after ${kv.modelWeightsGiB} GiB of weights. Try increasing --gpu-memory-utilization (or --gpu-memory-gib).`,
      );
    }
  } else {
    blocks = timing.maxNumSeqs * blocksFor(timing.maxModelLen);
    source = 'seats';
  }
  const tokens = blocks * BLOCK_SIZE;
  if (tokens < timing.maxModelLen) {
    throw new UserFacingError(
      `The model's max seq len (${timing.maxModelLen}) is larger than the maximum number of tokens that can be stored in KV cache (${tokens}). Try increasing ${source === 'kv-cache-tokens' ? '--kv-cache-tokens' : '--gpu-memory-utilization'} or decreasing --max-model-len.`,
    );
  }
  return { blocks, tokens, source };
}

/** vLLM's start-up line: how many full-length requests fit in the cache at once. */
export function describeKvCapacity(capacity: KvCapacity, maxModelLen: number): string {
  const concurrency = (capacity.tokens / maxModelLen).toFixed(2);
  return `KV cache size: ${capacity.tokens} tokens (${capacity.blocks} blocks of ${BLOCK_SIZE}, from ${capacity.source}); maximum concurrency for ${maxModelLen} tokens per request: ${concurrency}x`;
}
