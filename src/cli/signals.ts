// Ctrl-C during a run: the first stops sending and cancels what is in flight (each gets its `client_abort` record,
// and the report of what ran is printed, after the records file took its last lines); a second ends the process
// at once, losing the records still queued for the file (loadgen/bench/records-file.ts). Below it, the wait for
// the first SIGINT or SIGTERM of the commands that listen until stopped (sim, the demo).
import { EXIT_INTERRUPTED } from './command.js';

function stopOnSignals(controller: AbortController, say: (text: string) => void): () => void {
  let count = 0;
  const onSignal = (signal: NodeJS.Signals): void => {
    count++;
    if (count === 1) {
      say(
        `\n${signal}: stopping (in-flight requests are recorded as client_abort); press Ctrl-C again to quit at once\n`,
      );
      controller.abort();
      return;
    }
    process.exit(EXIT_INTERRUPTED);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
}

/** Runs `work` with a signal the first Ctrl-C aborts; the signal handlers are gone once it settles. */
export async function untilStopped<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const release = stopOnSignals(controller, (text) => process.stderr.write(text));
  try {
    return await work(controller.signal);
  } finally {
    release();
  }
}

/** Resolves on the first SIGINT or SIGTERM, so long-running commands can close cleanly and flush what they hold. */
export function waitForShutdownSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolve(signal);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}
