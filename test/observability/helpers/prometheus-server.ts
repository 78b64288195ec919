// A real Prometheus for a test: its own temp data dir and config, 127.0.0.1 on a free port, queried through its
// HTTP API, killed (and its directory removed) by close().
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

export interface Sample {
  readonly metric: Readonly<Record<string, string>>;
  readonly value: readonly [number, string];
}

export interface PrometheusServer {
  readonly url: string;
  /** Instant query, at `time` (Unix seconds) or now; throws on an error answer (a bad expression). */
  query(expr: string, time?: number): Promise<Sample[]>;
  /** What Prometheus logged, for failure messages. */
  log(): string;
  close(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Polls `check` until it returns a value other than undefined, or throws after `timeoutMs`. */
export async function pollUntil<T>(
  what: string,
  timeoutMs: number,
  check: () => Promise<T | undefined>,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const result = await check();
      if (result !== undefined) return result;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`, { cause: lastError });
    }
    await delay(200);
  }
}

function exited(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

export async function startPrometheus(binary: string, config: string): Promise<PrometheusServer> {
  const dir = mkdtempSync(join(tmpdir(), 'tokenmeter-prometheus-'));
  const configFile = join(dir, 'prometheus.yml');
  writeFileSync(configFile, config);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let output = '';
  const child = spawn(
    binary,
    [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout?.on('data', (c: Buffer) => {
    output += c.toString('utf8');
  });
  child.stderr?.on('data', (c: Buffer) => {
    output += c.toString('utf8');
  });
  const close = async (): Promise<void> => {
    child.kill('SIGTERM');
    if (!(await exited(child, 5000))) {
      child.kill('SIGKILL');
      await exited(child, 5000);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await pollUntil('Prometheus to be ready', 20_000, async () => {
      if (child.exitCode !== null) throw new Error(`prometheus exited with ${child.exitCode}: ${output}`);
      const response = await fetch(`${url}/-/ready`);
      await response.text();
      return response.ok ? true : undefined;
    });
  } catch (error) {
    await close();
    throw error;
  }
  return {
    url,
    log: () => output,
    async query(expr, time) {
      const at = time === undefined ? '' : `&time=${time}`;
      const response = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(expr)}${at}`);
      const body = (await response.json()) as {
        status: string;
        error?: string;
        data?: { resultType: string; result: Sample[] | [number, string] };
      };
      if (body.status !== 'success' || body.data === undefined) {
        throw new Error(`query failed: ${expr}: ${body.error ?? response.status}`);
      }
      // A scalar result (e.g. `vector(0)`-free arithmetic on numbers) counts as one sample.
      const { result } = body.data;
      return body.data.resultType === 'scalar'
        ? [{ metric: {}, value: result as [number, string] }]
        : (result as Sample[]);
    },
    close,
  };
}
