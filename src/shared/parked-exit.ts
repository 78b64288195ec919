// Ends a process that a file operation the OS never returns would keep alive: a records write (or the stat before
// one) on a hung network mount. Such an operation holds one of libuv's threadpool threads, and both the end of the
// event loop and process.exit() wait for it (libuv joins its threads on exit). A signal's default action does
// not wait: the process ends as one killed by SIGTERM (status 143 to a shell, and a clean stop to systemd and
// Kubernetes, which sent it). What the file did not take was counted lost and said in the log before this runs:
// flushLogSync, at the end, writes that log out first.
import { type Logger, symbols } from 'pino';

/** `flush` writes out what the process still has to say, on this thread (its log's batch, say). */
export function endDespiteParkedWrite(flush: () => void): void {
  flush();
  process.removeAllListeners('SIGTERM');
  process.kill(process.pid, 'SIGTERM');
}

// Writes what a pino logger's destination still holds now, on this thread. Its batched writes otherwise go
// through libuv's threadpool, which a parked file operation may be holding (above).
export function flushLogSync(logger: Logger): void {
  const destination = (logger as unknown as Record<symbol, unknown>)[symbols.streamSym] as
    | { flushSync?: () => void }
    | undefined;
  try {
    destination?.flushSync?.();
  } catch {
    // Not ready, or destroyed: nothing more can be said.
  }
}
