// `bench --workers N`: the command line each worker runs. A worker gets the parent's settings (flags over
// --config) as a --config file of its own, overridden where a worker differs: its shard, its scratch files, no
// progress display, no threshold or success floor (the parent judges the merged run), the parent's request id
// prefix and model (asked of the server once). A key typed with --api-key is handed over in the worker's
// environment, never written to the file.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError, UserFacingError } from '../../src/shared/user-facing-error.js';
import type { PreparedRun, Say } from '../bench/prepare-run.js';
import type { BenchRunOutcome } from '../bench/save-result.js';
import type { BenchSettings } from '../bench/settings.js';
import { hasLimits } from '../cost/cost-settings.js';
import { checkConcurrencySplit } from './shard-spec.js';
import type { WorkerFiles } from './workers-run.js';

/** One flag's value as the command line parsed it (a list flag's items, `Infinity` for `inf`). */
export type FlagValue = string | number | boolean | readonly string[] | undefined;

/** The parent's parsed flags by long name (defaults included), and its positionals: what each worker inherits. */
export interface ParentFlags {
  readonly values: Readonly<Record<string, FlagValue>>;
  readonly positionals: readonly string[];
}

/** How the workers are started: the CLI's own script and the environment they inherit. */
export interface WorkerProcess {
  readonly cliPath: string;
  readonly env: NodeJS.ProcessEnv;
}

/** The environment variable a worker reads a typed --api-key from. */
const WORKER_KEY_ENV = 'TOKENMETER_WORKER_API_KEY';

/** The parent's own flags, or ones a worker's overrides replace. */
const NOT_PASSED = new Set([
  'config',
  'workers',
  'html',
  'save-result',
  'result-dir',
  'result-filename',
  'records-file',
  'no-records',
  'gateway-records',
  'threshold',
  'no-success-floor',
  'shard',
  'shard-count',
  'start-at',
  'start-delay',
  'disable-tqdm',
  'api-key',
  'api-key-env',
  'request-id-prefix',
  'model',
]);

/** Refuses what --workers cannot honour, before anything starts. */
export function checkWorkers(count: number, settings: BenchSettings): void {
  if (count === 1) return;
  if (settings.shard !== undefined)
    throw new UsageError("--workers splits this machine's run; with --shard give each machine one process");
  if (settings.engine === 'closed-loop')
    throw new UsageError('--workers needs the open-loop engine: a closed loop has no schedule to split');
  if (settings.smoke) throw new UsageError('--smoke sends 5 prompts from one process: leave out --workers');
  // Each worker would judge a budget on its own share and stop alone: the run's budget would not be kept.
  if (hasLimits(settings.cost.limits))
    throw new UsageError(
      '--max-cost and --max-total-tokens stop one process: leave them out or leave out --workers',
    );
  if (settings.spanReceiver !== undefined)
    throw new UsageError('--span-receiver-port listens in one process: leave it out or leave out --workers');
  checkConcurrencySplit(settings.maxConcurrency, count, 'workers');
}

function jsonValue(value: FlagValue): unknown {
  return value === Number.POSITIVE_INFINITY ? 'inf' : value;
}

export interface WorkerCommandLine {
  readonly argsFor: (index: number, folder: string, files: WorkerFiles) => string[];
  readonly env: NodeJS.ProcessEnv;
}

export function workerCommandLine(
  flags: ParentFlags,
  count: number,
  settings: BenchSettings,
  prepared: PreparedRun,
  env: NodeJS.ProcessEnv,
): WorkerCommandLine {
  const shared: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(flags.values)) {
    if (value === undefined || NOT_PASSED.has(name)) continue;
    shared[name.replace(/-/g, '_')] = jsonValue(value);
  }
  const key = settings.apiKey.key;
  return {
    env: key === undefined ? env : { ...env, [WORKER_KEY_ENV]: key },
    argsFor: (index, folder, files) => {
      const config = join(folder, `worker-${index}.config.json`);
      const own = {
        ...shared,
        ...(key === undefined ? {} : { api_key_env: WORKER_KEY_ENV }),
        model: prepared.modelId,
        request_id_prefix: settings.requestIdPrefix,
        shard: `${index}/${count}`,
        save_result: true,
        result_dir: folder,
        result_filename: files.resultFilename,
        records_file: files.recordsFile,
        disable_tqdm: true,
        no_success_floor: true,
      };
      writeFileSync(config, JSON.stringify(own));
      return ['bench', '--config', config, ...flags.positionals];
    },
  };
}

/** The whole --workers run: workers started together (at --start-at, after --start-delay, or as soon as all are
 *  ready), their shards merged into the one run's outcome. */
export async function workersOutcome(
  flags: ParentFlags,
  worker: WorkerProcess,
  count: number,
  settings: BenchSettings,
  prepared: PreparedRun,
  signal: AbortSignal,
  say: Say,
): Promise<BenchRunOutcome> {
  const { argsFor, env } = workerCommandLine(flags, count, settings, prepared, worker.env);
  const start = settings.start;
  // The merge and the workers' processes are loaded only for a --workers run, which few runs are.
  const { workersRun } = await import('./workers-run.js');
  return workersRun({
    settings,
    prepared,
    count,
    argsFor,
    env,
    cliPath: worker.cliPath,
    signal,
    say,
    startAt: (soonest) => {
      if (start === undefined || start.kind === 'parent') return soonest;
      if (start.kind === 'delay') return Math.max(soonest, Date.now() + start.ms);
      if (start.epochMs < soonest)
        throw new UserFacingError(
          `--start-at ${start.text} passed while the workers got ready; give a later time`,
        );
      return start.epochMs;
    },
  });
}
