// `bench --workers N`: the parent starts N workers (child processes with an IPC channel), each prepares its run,
// says it is ready, and waits; once all are ready the parent names one wall-clock instant and every worker anchors
// its schedule there. No worker can start early, and none is left behind by a slow start of another.

export interface ReadyMessage {
  readonly type: 'tokenmeter-worker-ready';
}

export interface StartMessage {
  readonly type: 'tokenmeter-worker-start';
  /** Date.now() time of the run's t = 0. */
  readonly epochMs: number;
}

/** Set in a worker's environment by the parent: the worker then waits for its start instant over IPC. */
export const WORKER_ENV = 'TOKENMETER_BENCH_WORKER';

export function isStartMessage(value: unknown): value is StartMessage {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { type?: unknown }).type === 'tokenmeter-worker-start' &&
    typeof (value as { epochMs?: unknown }).epochMs === 'number'
  );
}

export function isReadyMessage(value: unknown): value is ReadyMessage {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { type?: unknown }).type === 'tokenmeter-worker-ready'
  );
}

/** In a worker: says ready, resolves with the instant the parent names. */
export function awaitStartFromParent(): Promise<number> {
  const send = process.send?.bind(process);
  if (send === undefined) throw new Error('a bench worker needs an IPC channel to its parent');
  return new Promise((resolve) => {
    const onMessage = (message: unknown): void => {
      if (!isStartMessage(message)) return;
      process.off('message', onMessage);
      // The channel would keep this process alive after its run.
      process.channel?.unref();
      resolve(message.epochMs);
    };
    process.on('message', onMessage);
    process.channel?.ref();
    const ready: ReadyMessage = { type: 'tokenmeter-worker-ready' };
    send(ready);
  });
}
