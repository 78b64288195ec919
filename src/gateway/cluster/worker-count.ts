// `--workers N|auto` (and the config file's `workers`): how many gateway processes `tokenmeter serve` runs.
// 1, the default, is the plain single process with no primary; more start a supervising primary (primary.ts).
import { availableParallelism } from 'node:os';
import { UsageError } from '../../shared/user-facing-error.js';

export const DEFAULT_WORKERS = 1;

/** `auto` is the CPUs this process may use (cgroup and affinity limits included), as Node reports them. */
export function workerCount(value: string | number | undefined): number {
  if (value === undefined) return DEFAULT_WORKERS;
  if (value === 'auto') return availableParallelism();
  const count = typeof value === 'number' ? value : Number(value);
  if (!Number.isInteger(count) || count < 1) {
    throw new UsageError(
      `--workers must be a whole number of processes (1 or more) or auto (got '${value}')`,
    );
  }
  return count;
}
