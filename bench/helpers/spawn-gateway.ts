// Benchmarks run the gateway as its own process (the real `tokenmeter serve` CLI), so /proc/<pid> describes the
// gateway alone (its RSS, its CPU) and its event loop shares nothing with the client. Its log (JSON lines on
// standard output, as deployed) goes to a file; resolves once it prints the address it listens on.
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { LOOP_PROBE_FILE_ENV } from './loop-hold-probe.js';

const CLI = fileURLToPath(new URL('../../../bin/tokenmeter.js', import.meta.url));
const LOOP_PROBE = new URL('./loop-hold-probe.js', import.meta.url).href;

export interface SpawnedGateway {
  /** `http://127.0.0.1:PORT`, without `/v1`. */
  readonly url: string;
  /** `http://HOST:PORT/metrics` when the gateway listens on a metrics port of its own (--metrics-port), else null. */
  readonly metricsUrl: string | null;
  readonly process: ChildProcess;
  /** Resolves with the exit code once the process has exited (null when a signal ended it). */
  readonly exited: Promise<number | null>;
}

/**
 * `cpus` (taskset's list, e.g. `1` or `0-1`) pins the gateway, and every worker it forks, to those CPUs.
 * `loopProbeFile` preloads loop-hold-probe.ts, which reports there on SIGUSR2.
 */
export async function spawnGateway(
  flags: readonly string[],
  logFile: string,
  cpus?: string,
  loopProbeFile?: string,
): Promise<SpawnedGateway> {
  const probe = loopProbeFile === undefined ? [] : ['--import', LOOP_PROBE];
  const argv = [process.execPath, ...probe, CLI, 'serve', '--port', '0', ...flags];
  const [command = '', ...args] = cpus === undefined ? argv : ['taskset', '-c', cpus, ...argv];
  const env =
    loopProbeFile === undefined ? process.env : { ...process.env, [LOOP_PROBE_FILE_ENV]: loopProbeFile };
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const log = createWriteStream(logFile);
  child.stderr.pipe(log, { end: false });
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    const onData = (d: Buffer): void => {
      out += d.toString();
      const match = /listening on http:[^\n]*\n/.exec(out);
      if (match === null) return;
      child.stdout.off('data', onData);
      log.write(out);
      child.stdout.pipe(log);
      resolve(match[0]);
    };
    child.stdout.on('data', onData);
    void exited.then((code) => reject(new Error(`gateway exited (${code}) before listening: ${out}`)));
  });
  const url = /listening on (http:\/\/\S+?)\/v1 /.exec(line)?.[1] ?? '';
  const metricsUrl = /metrics on (http:\/\/\S+?\/metrics)/.exec(line)?.[1] ?? null;
  return { url, metricsUrl, process: child, exited };
}

/** The process's resident set size now, in bytes, from /proc (Linux). */
export async function residentBytes(pid: number): Promise<number> {
  const kb = /VmRSS:\s+(\d+) kB/.exec(await readFile(`/proc/${pid}/status`, 'utf8'))?.[1];
  if (kb === undefined) throw new Error(`no VmRSS for process ${pid}`);
  return Number(kb) * 1024;
}
