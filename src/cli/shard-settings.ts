// --shard / --shard-count / --start-at / --start-delay -> the run's shard and start instant, checked before
// anything is sent. A shard's result file names its shard (top-level "shard": "I/N", beside --metadata pairs) so
// `tokenmeter merge` can tell the shards apart and see one missing.

import type { EngineName } from '../../loadgen/bench/settings.js';
import { SHARD_RESULT_KEY } from '../../loadgen/shards/shard-results.js';
import {
  checkConcurrencySplit,
  type ShardSpec,
  shardFromFlags,
  shardText,
} from '../../loadgen/shards/shard-spec.js';
import { WORKER_ENV } from '../../loadgen/shards/start-handshake.js';
import { type StartInstant, startInstantFromFlags } from '../../loadgen/shards/start-instant.js';
import { UsageError } from '../shared/usage-error.js';
import type { ParsedOptions } from './options.js';

export interface ShardSettings {
  readonly settings: { shard?: ShardSpec; start?: StartInstant };
  readonly metadata: Record<string, string>;
}

export function shardSettings(o: ParsedOptions, env: NodeJS.ProcessEnv, engine: EngineName): ShardSettings {
  const text = (name: string): string | undefined => {
    const v = o[name];
    return typeof v === 'string' ? v : undefined;
  };
  const count = (name: string): number | undefined => {
    const v = o[name];
    return typeof v === 'number' ? v : undefined;
  };
  const shard = shardFromFlags(text('shard'), count('shard-count'), env);
  if (shard !== undefined) checkConcurrencySplit(count('max-concurrency'), shard.count, 'shards');
  // A --workers parent names the instant itself; its workers wait for it.
  const start =
    env[WORKER_ENV] === '1'
      ? ({ kind: 'parent' } as const)
      : startInstantFromFlags(text('start-at'), count('start-delay'), Date.now());
  if ((shard !== undefined || start !== undefined) && engine === 'closed-loop')
    throw new UsageError(
      '--shard and --start-at/--start-delay need the open-loop engine: a closed loop has no schedule to split',
    );
  return {
    settings: {
      ...(shard === undefined ? {} : { shard }),
      ...(start === undefined ? {} : { start }),
    },
    metadata: shard === undefined ? {} : { [SHARD_RESULT_KEY]: shardText(shard) },
  };
}
