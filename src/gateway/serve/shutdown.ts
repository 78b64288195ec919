// Graceful shutdown in the order load balancers expect. /readyz fails at once, while everything (new connections
// included) is still served for shutdownDelayMs, so a load balancer or a Kubernetes endpoint controller stops
// routing here first. Then the gateway drains: it stops accepting connections and lets in-flight requests finish
// for up to shutdownGraceMs (admission.ts refuses new requests on kept-alive connections and closes each
// connection as its response ends), then cuts what remains. Records are flushed by the records plugin's onClose.
import { toWorker } from '../cluster/messages.js';
import type { Gateway } from '../context.js';

const GRACE_RAN_OUT = 'cut by the gateway: it was shutting down and shutdownGraceMs ran out';
const SECOND_SIGNAL = 'cut by the gateway: it was shutting down and received a second signal';

/** One gateway's shutdown: begun once; `cut` ends it at once, whatever phase it is in. */
export class GatewayShutdown {
  readonly #gateway: Gateway;
  /** Ends the delay early; set while the delay runs. */
  #endDelay: (() => void) | null = null;

  constructor(gateway: Gateway) {
    this.#gateway = gateway;
  }

  /** Resolves once the gateway is closed: its last response ended (or was cut) and its records were written. */
  async begin(): Promise<void> {
    const { app, context } = this.#gateway;
    const { shutdownDelayMs, shutdownGraceMs } = context.config;
    context.state.shuttingDown = true;
    if (shutdownDelayMs > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, shutdownDelayMs);
        this.#endDelay = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#endDelay = null;
    }
    app.log.info(
      { inFlight: context.state.inFlight },
      `draining: no new connections; in-flight requests have up to ${shutdownGraceMs} ms`,
    );
    context.state.graceEndsAt = performance.now() + shutdownGraceMs;
    const closing = app.close();
    const cutEarly = context.state.cutReason;
    if (cutEarly !== null) this.cut(cutEarly);
    const force = setTimeout(() => {
      app.log.warn(
        { inFlight: context.state.inFlight },
        `grace period of ${shutdownGraceMs} ms over: closing remaining connections`,
      );
      this.cut(GRACE_RAN_OUT);
    }, shutdownGraceMs);
    force.unref();
    try {
      await closing;
    } finally {
      clearTimeout(force);
    }
  }

  /**
   * Cuts every connection now, and every mirror copy still running; what they carried is recorded as truncated,
   * with `reason` as its error.
   */
  cut(reason: string): void {
    const { app, context } = this.#gateway;
    context.state.cutReason = reason;
    context.mirrors.cut(reason);
    // During the delay the gateway still listens: end the delay, and begin() cuts once it stopped listening.
    if (this.#endDelay !== null) this.#endDelay();
    else app.server.closeAllConnections();
  }
}

/**
 * Shuts down on the first SIGTERM or SIGINT; a second one cuts every connection at once. A cluster worker also
 * obeys its primary, which passes on the signals it received (src/gateway/cluster/primary.ts): its drain counts as
 * the first signal unless one already came (a terminal's Ctrl-C reaches primary and workers alike), its cut as a
 * second.
 */
export function shutDownOnSignals(gateway: Gateway): Promise<void> {
  const shutdown = new GatewayShutdown(gateway);
  const { config, state } = gateway.context;
  return new Promise((resolve, reject) => {
    let stopping = false;
    const onSignal = (signal: NodeJS.Signals): void => {
      if (stopping) {
        gateway.app.log.warn(
          { signal, inFlight: state.inFlight },
          `${signal} again: cutting every connection`,
        );
        shutdown.cut(SECOND_SIGNAL);
        return;
      }
      stopping = true;
      gateway.app.log.info(
        { signal, inFlight: state.inFlight },
        `${signal}: /readyz fails now; draining in ${config.shutdownDelayMs} ms (shutdownDelayMs)`,
      );
      shutdown.begin().then(() => {
        process.off('SIGTERM', onSignal);
        process.off('SIGINT', onSignal);
        process.off('message', onPrimary);
        resolve();
      }, reject);
    };
    const onPrimary = (raw: unknown): void => {
      const message = toWorker(raw);
      if (message?.type !== 'tokenmeter:drain' && message?.type !== 'tokenmeter:cut') return;
      if (!stopping) onSignal(message.signal);
      if (message.type === 'tokenmeter:cut') onSignal(message.signal);
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
    if (process.send !== undefined) process.on('message', onPrimary);
  });
}
