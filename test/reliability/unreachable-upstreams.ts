// Upstreams the gateway cannot reach, on loopback: a port nothing listens on (the kernel refuses at once), and a
// listener that never accepts, whose SYNs the kernel drops so that connecting times out instead of failing.
import { connect, createServer, type Socket } from 'node:net';
import { Worker } from 'node:worker_threads';

/** A loopback port that was free a moment ago and has nothing listening on it now. */
export async function refusingPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface UnacceptingListener {
  readonly port: number;
  close(): Promise<void>;
}

// A listening socket in a worker whose event loop is then blocked, so nothing ever calls accept(). With backlog 1
// the kernel queues two handshakes (backlog + 1); Linux then drops further SYNs (tcp_abort_on_overflow = 0, the
// default), and a client keeps retransmitting until its own connect timeout.
const LISTENER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const server = require('node:net').createServer();
server.listen({ host: '127.0.0.1', port: 0, backlog: 1 }, () => {
  parentPort.postMessage(server.address().port);
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
});
`;

/**
 * How long a probe connection must stay without an answer to count as unanswered. Measured on the 2-core
 * development box: an accepted handshake on loopback completes in 0.5-3.5 ms and a refusal is as quick, so 200 ms
 * of silence means the SYN was dropped.
 */
const PROBE_SILENCE_MS = 200;
/** More than enough: the queue holds backlog + 1 = 2 handshakes. */
const MAX_FILLERS = 16;

/**
 * Starts a listener that never accepts and fills its queue, proving it: connections are opened until one gets
 * neither a connection nor an error within PROBE_SILENCE_MS. Throws if that never happens (a kernel that accepts
 * or refuses on overflow), so a row built on it cannot silently test a refusal instead.
 */
export async function startUnacceptingListener(): Promise<UnacceptingListener> {
  const worker = new Worker(LISTENER_SOURCE, { eval: true });
  const port = await new Promise<number>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  const fillers: Socket[] = [];
  const close = async (): Promise<void> => {
    for (const socket of fillers) socket.destroy();
    await worker.terminate();
  };
  for (let i = 0; i < MAX_FILLERS; i++) {
    const socket = connect(port, '127.0.0.1');
    fillers.push(socket);
    const answer = await new Promise<string>((resolve) => {
      const silence = setTimeout(() => resolve('silence'), PROBE_SILENCE_MS);
      socket.once('connect', () => {
        clearTimeout(silence);
        resolve('connected');
      });
      socket.once('error', (error: NodeJS.ErrnoException) => {
        clearTimeout(silence);
        resolve(error.code ?? 'error');
      });
    });
    if (answer === 'silence') return { port, close };
    if (answer !== 'connected') {
      await close();
      throw new Error(`filling the accept queue got ${answer}, not silence`);
    }
  }
  await close();
  throw new Error(`${MAX_FILLERS} connections were all accepted: the accept queue never filled`);
}
