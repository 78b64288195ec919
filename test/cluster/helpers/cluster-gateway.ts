// `tokenmeter serve --workers 2` as a test runs it: the real CLI as a child process, its log lines (JSON) watched
// as they arrive, so a test waits for what the gateway says (listening, a worker replaced, draining) instead of
// sleeping; and plain HTTP over a new connection per request, so the cluster's round robin spreads requests over
// the workers.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { CLI_PATH } from '../../helpers/run-cli.js';

/**
 * Starting three Node processes takes about a second on an idle machine; this box is shared by several test
 * runs at once and was seen taking 8 s (load average 15), so waits for a log line allow far more.
 */
export const LOG_WAIT_MS = 30_000;

export interface ClusterGateway {
  readonly child: ChildProcessWithoutNullStreams;
  /** `http://127.0.0.1:PORT` of the API port. */
  readonly url: string;
  /** The workers' pids, from the listening line. */
  readonly pids: readonly number[];
  /** `http://127.0.0.1:PORT/metrics` when --metrics-port was given. */
  readonly metricsUrl: string | null;
  /** Every log line so far (stdout and stderr). */
  lines(): string[];
  /** Resolves with the first line (already seen or still to come) matching `pattern`. */
  waitForLine(pattern: RegExp, count?: number): Promise<RegExpMatchArray[]>;
  readonly exited: Promise<number | null>;
}

export async function startClusterGateway(flags: readonly string[]): Promise<ClusterGateway> {
  const child = spawn(
    process.execPath,
    [CLI_PATH, 'serve', '--workers', '2', '--port', '0', '--log-format', 'json', ...flags],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  const lines: string[] = [];
  const watchers = new Set<() => void>();
  let partial = '';
  const onData = (data: Buffer): void => {
    const parts = (partial + data.toString()).split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts.filter((l) => l !== ''));
    for (const watcher of watchers) watcher();
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const waitForLine = (pattern: RegExp, count = 1): Promise<RegExpMatchArray[]> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        const matches = lines.flatMap((l) => {
          const m = l.match(pattern);
          return m === null ? [] : [m];
        });
        if (matches.length < count) return;
        watchers.delete(check);
        clearTimeout(timer);
        resolve(matches);
      };
      const timer = setTimeout(() => {
        watchers.delete(check);
        reject(
          new Error(`no ${count} line(s) matching ${pattern} within ${LOG_WAIT_MS} ms:\n${lines.join('\n')}`),
        );
      }, LOG_WAIT_MS);
      watchers.add(check);
      void exited.then(() => setImmediate(check));
      check();
    });
  const listening = waitForLine(
    /listening on (http:\/\/[^/\s]+)\/v1 .*?(?:; metrics on (http:\/\/\S+?\/metrics))?; 2 workers \(pids (\d+), (\d+)\)/,
  );
  const [match] = await Promise.race([
    listening,
    exited.then((code) => {
      throw new Error(`the gateway exited (${code}) before listening:\n${lines.join('\n')}`);
    }),
  ]);
  if (match === undefined) throw new Error('unreachable: a match was found');
  return {
    child,
    url: match[1] ?? '',
    metricsUrl: match[2] ?? null,
    pids: [Number(match[3]), Number(match[4])],
    lines: () => [...lines],
    waitForLine,
    exited,
  };
}

export interface HttpAnswer {
  readonly status: number;
  readonly body: string;
}

/** One request on a connection of its own (agent: false), so each can reach another worker. */
export function requestOnNewConnection(url: string, method = 'GET', body?: string): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method,
        agent: false,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The sum of every sample of `name` on a Prometheus text page (a counter's total over its labels). */
export function sampleSum(page: string, name: string): number {
  let sum = 0;
  for (const line of page.split('\n')) {
    if (!line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    if (rest.startsWith(' ') || rest.startsWith('{')) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}
