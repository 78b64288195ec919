// --shard / --shard-count / --start-at / --start-delay -> the run's shard and start instant, checked before
// anything is sent. A shard's result file names its shard (top-level "shard": "I/N", beside --metadata pairs) so
// `tokenmeter merge` can tell the shards apart and see one missing.

import type { EngineName } from '../../loadgen/bench/settings.js';
import {
  checkConcurrencySplit,
  SHARD_RESULT_KEY,
  type ShardSpec,
  shardFromFlags,
  shardText,
} from '../../loadgen/shards/shard-spec.js';
import { WORKER_ENV } from '../../loadgen/shards/start-handshake.js';
import { type StartInstant, startInstantFromFlags } from '../../loadgen/shards/start-instant.js';
import { UsageError } from '../shared/user-facing-error.js';
import type { BenchValues } from './bench-options.js';

export interface ShardSettings {
  readonly settings: { shard?: ShardSpec; start?: StartInstant };
  readonly metadata: Record<string, string>;
}

export function shardSettings(o: BenchValues, env: NodeJS.ProcessEnv, engine: EngineName): ShardSettings {
  const shard = shardFromFlags(o['shard'], o['shard-count'], env);
  if (shard !== undefined) checkConcurrencySplit(o['max-concurrency'], shard.count, 'shards');
  // A --workers parent names the instant itself; its workers wait for it.
  const start =
    env[WORKER_ENV] === '1'
      ? ({ kind: 'parent' } as const)
      : startInstantFromFlags(o['start-at'], o['start-delay'], Date.now());
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
