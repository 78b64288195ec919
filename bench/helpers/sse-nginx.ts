// An upstream that costs almost nothing, for measuring a client or a proxy: nginx (unprivileged, a scratch prefix,
// one worker process, a loopback port) answering every request with the same OpenAI chat stream from memory. By
// default its answer is one token, so a run's load is its request rate, and nginx spends microseconds on each:
// what limits the run is what is measured. `cpu` pins nginx to one core with taskset, so on a small box the
// measured process keeps the others.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const NGINX = '/usr/sbin/nginx';

const chunk = (choices: string, usage = ''): string =>
  `data: {"id":"chatcmpl-0","object":"chat.completion.chunk","created":0,"model":"nginx/fixed","choices":${choices}${usage}}\n\n`;

/** The fixed answer: role, `tokens` content chunks, finish, usage, [DONE], as vLLM writes them. */
function answer(tokens: number): string {
  let body = chunk('[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]');
  for (let i = 0; i < tokens; i++)
    body += chunk('[{"index":0,"delta":{"content":" hello"},"finish_reason":null}]');
  body += chunk('[{"index":0,"delta":{},"finish_reason":"stop"}]');
  body += chunk(
    '[]',
    `,"usage":{"prompt_tokens":16,"completion_tokens":${tokens},"total_tokens":${16 + tokens}}`,
  );
  return `${body}data: [DONE]\n\n`;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

function config(prefix: string, port: number, tokens: number): string {
  const temp = (name: string): string => join(prefix, name);
  return `worker_processes 1;
daemon off;
pid ${temp('nginx.pid')};
error_log ${temp('error.log')} warn;
events { worker_connections 16384; }
http {
  access_log off;
  client_body_temp_path ${temp('body')};
  proxy_temp_path ${temp('proxy')};
  fastcgi_temp_path ${temp('fastcgi')};
  uwsgi_temp_path ${temp('uwsgi')};
  scgi_temp_path ${temp('scgi')};
  keepalive_requests 10000000;
  keepalive_timeout 120s;
  server {
    listen 127.0.0.1:${port} backlog=4096;
    location /v1/models {
      default_type application/json;
      return 200 '{"object":"list","data":[{"id":"nginx/fixed","object":"model"}]}';
    }
    location / {
      default_type text/event-stream;
      return 200 '${answer(tokens)}';
    }
  }
}
`;
}

export interface SseNginx {
  /** `http://127.0.0.1:PORT` */
  readonly url: string;
  /** nginx's master process (its worker is a child): to pin it or read its CPU time. */
  readonly pid: number | undefined;
  stop(): Promise<void>;
}

export interface SseNginxOptions {
  /** Pin nginx to this core with taskset. */
  readonly cpu?: number;
  /** Content chunks in each answer (default 1). */
  readonly tokens?: number;
}

export async function startSseNginx({ cpu, tokens = 1 }: SseNginxOptions = {}): Promise<SseNginx> {
  const prefix = mkdtempSync(join(tmpdir(), 'tokenmeter-nginx-'));
  mkdirSync(join(prefix, 'logs'));
  const port = await freePort();
  writeFileSync(join(prefix, 'nginx.conf'), config(prefix, port, tokens));
  const args = ['-p', prefix, '-c', join(prefix, 'nginx.conf'), '-e', join(prefix, 'error.log')];
  const child: ChildProcess =
    cpu === undefined
      ? spawn(NGINX, args, { stdio: 'ignore' })
      : spawn('taskset', ['-c', String(cpu), NGINX, ...args], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  // Listening once it answers.
  for (let attempt = 0; ; attempt++) {
    try {
      if ((await fetch(`${url}/v1/models`)).ok) break;
    } catch {
      if (attempt > 100 || child.exitCode !== null)
        throw new Error(`nginx did not start (see ${prefix}/error.log)`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return {
    url,
    pid: child.pid,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGQUIT');
      }),
  };
}
