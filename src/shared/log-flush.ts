// Writes what a pino logger's destination still holds now, on this thread. Its batched writes otherwise go
// through libuv's threadpool, which a parked file operation may be holding (src/shared/parked-exit.ts).
import { type Logger, symbols } from 'pino';

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
