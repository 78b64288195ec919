// Turns the errors of binding a listening socket (sim, serve, its metrics port) into one line saying what to do,
// instead of Node's stack trace.
interface SystemError {
  readonly code?: unknown;
  readonly syscall?: unknown;
  readonly address?: unknown;
  readonly port?: unknown;
}

const ADVICE: Readonly<Record<string, string>> = {
  EADDRINUSE: 'the port is already in use (another tokenmeter, or another server?): choose another port',
  EACCES: 'permission denied: ports below 1024 need privileges; choose a port from 1024 up',
  EADDRNOTAVAIL: "that address is not one of this machine's: listen on 127.0.0.1, 0.0.0.0 or a local address",
};

/** One line for a failed listen(), or undefined for any other error. */
export function describeListenError(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, syscall, address, port } = error as SystemError;
  // A cluster worker's listen is done by the primary, which reports a failed bind as syscall 'bind'.
  if ((syscall !== 'listen' && syscall !== 'bind') || typeof code !== 'string') return undefined;
  const where =
    typeof address === 'string' && port !== undefined ? `${address}:${String(port)}` : 'the address';
  return `cannot listen on ${where}: ${ADVICE[code] ?? code}`;
}
