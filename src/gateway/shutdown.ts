// Graceful shutdown: stop accepting, refuse new requests on kept-alive connections (503), let in-flight streams
// finish for up to the grace period, then cut what remains; records are flushed by the records plugin's onClose.
import type { Gateway } from './context.js';

export async function shutDown(gateway: Gateway, graceMs: number): Promise<void> {
  const { app, context } = gateway;
  context.state.shuttingDown = true;
  const force = setTimeout(() => {
    app.log.warn(
      { inFlight: context.state.inFlight },
      `grace period of ${graceMs} ms over: closing remaining connections`,
    );
    cutConnections(gateway);
  }, graceMs);
  force.unref();
  try {
    await app.close();
  } finally {
    clearTimeout(force);
  }
}

function cutConnections(gateway: Gateway): void {
  gateway.context.state.cuttingConnections = true;
  gateway.app.server.closeAllConnections();
}

/** Shuts down on the first SIGTERM or SIGINT; a second one cuts every connection at once. */
export function shutDownOnSignals(gateway: Gateway, graceMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let stopping = false;
    const onSignal = (signal: NodeJS.Signals): void => {
      if (stopping) {
        cutConnections(gateway);
        return;
      }
      stopping = true;
      gateway.app.log.info({ signal, inFlight: gateway.context.state.inFlight }, `${signal}: shutting down`);
      shutDown(gateway, graceMs).then(() => {
        process.off('SIGTERM', onSignal);
        process.off('SIGINT', onSignal);
        resolve();
      }, reject);
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
}
