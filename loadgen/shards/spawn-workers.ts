// `bench --workers N`'s processes: N copies of the CLI, each sending one shard of the run, started together. Each
// worker prepares its run and says ready over its IPC channel (start-handshake.ts); when all are ready the parent
// names one wall-clock instant a little ahead (START_MARGIN_MS, time for the message to reach every worker) and
// they all anchor t = 0 there. Workers run in their own process group, so a Ctrl-C reaches them once, through
// the parent, and each still writes the record of what it ran.
//
// Processes, not worker threads. Both were measured with bench/loadgen-workers.ts (docs/loadgen-reference.md,
// "Workers"): on the shared 2-core box neither held a rate the other could not, the differences were inside the
// run-to-run spread. Processes then win on what was not in doubt: a worker is the very CLI a shard on another
// machine runs (one code path, tested once), its heap and garbage collection are its own, a crash takes only it
// down, and taskset can pin it to a core.

import { type ChildProcess, fork } from 'node:child_process';
import { UserFacingError } from '../../src/shared/user-facing-error.js';
import { isReadyMessage, type StartMessage, WORKER_ENV } from './start-handshake.js';

/** Between naming the instant and the instant itself: an IPC message normally arrives within a millisecond; the
 *  margin covers a worker descheduled for a while on a loaded machine (one that still wakes late shows it as
 *  schedule lag, never as a shifted schedule). */
const START_MARGIN_MS = 200;
/** Lines of a worker's stderr kept to say why it failed. */
const KEPT_LINES = 5;

export interface WorkerSpawn {
  /** The CLI's script (process.argv[1] of the parent). */
  readonly cliPath: string;
  readonly count: number;
  /** Worker i's command line after the script. */
  readonly argsFor: (index: number) => string[];
  readonly env: NodeJS.ProcessEnv;
  /** The Date.now() instant of t = 0, given the soonest one possible once all are ready. */
  readonly startAt: (soonestEpochMs: number) => number;
  readonly signal: AbortSignal;
}

export interface WorkerExit {
  readonly index: number;
  readonly code: number | null;
  /** The last lines it wrote to stderr, for the error that names it. */
  readonly lastLines: string;
}

class Worker {
  readonly child: ChildProcess;
  readonly ready: Promise<void>;
  readonly exited: Promise<WorkerExit>;
  #stderr = '';

  constructor(
    spawn: WorkerSpawn,
    readonly index: number,
  ) {
    this.child = fork(spawn.cliPath, spawn.argsFor(index), {
      env: { ...spawn.env, [WORKER_ENV]: '1' },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      detached: true,
    });
    this.child.stderr?.on('data', (chunk: Buffer) => {
      this.#stderr = (this.#stderr + chunk.toString())
        .split('\n')
        .slice(-KEPT_LINES - 1)
        .join('\n');
    });
    this.exited = new Promise((resolve) => {
      this.child.on('exit', (code) => resolve({ index, code, lastLines: this.#stderr.trim() }));
    });
    this.ready = new Promise((resolve, reject) => {
      this.child.on('message', (message) => {
        if (isReadyMessage(message)) resolve();
      });
      void this.exited.then((exit) =>
        reject(new UserFacingError(`worker ${index} stopped before its run started: ${exit.lastLines}`)),
      );
    });
    // Once one worker fails the others are stopped, and their own rejections are nobody's news.
    this.ready.catch(() => undefined);
  }

  stop(): void {
    if (this.child.exitCode === null) this.child.kill('SIGTERM');
  }
}

/** Runs the workers to their end; rejects (the others stopped) when one fails before the run starts. */
export async function runWorkers(spawn: WorkerSpawn): Promise<WorkerExit[]> {
  const workers = Array.from({ length: spawn.count }, (_, i) => new Worker(spawn, i));
  const stopAll = (): void => {
    for (const worker of workers) worker.stop();
  };
  spawn.signal.addEventListener('abort', stopAll, { once: true });
  process.once('exit', stopAll);
  try {
    await Promise.all(workers.map((w) => w.ready));
    const start: StartMessage = {
      type: 'tokenmeter-worker-start',
      epochMs: spawn.startAt(Date.now() + START_MARGIN_MS),
    };
    for (const worker of workers) worker.child.send(start);
    return await Promise.all(workers.map((w) => w.exited));
  } catch (error) {
    stopAll();
    await Promise.all(workers.map((w) => w.exited));
    throw error;
  } finally {
    spawn.signal.removeEventListener('abort', stopAll);
    process.off('exit', stopAll);
  }
}
