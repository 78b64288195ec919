// An upstream that costs almost nothing, for measuring a client: nginx (unprivileged, a scratch prefix, one
// worker process, a loopback port) answering every request with the same short OpenAI chat stream. Its answer is
// one token, so a run's load is its request rate, and nginx spends microseconds on each: what limits the run is
// the load generator. `cpu` pins nginx to one core with taskset, so on a small box the client keeps the others.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const NGINX = '/usr/sbin/nginx';

const chunk = (choices: string, usage = ''): string =>
  `data: {"id":"chatcmpl-0","object":"chat.completion.chunk","created":0,"model":"nginx/fixed","choices":${choices}${usage}}\n\n`;

/** The fixed answer: role, one token, finish, usage, [DONE], as vLLM writes them. */
const ANSWER =
  chunk('[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]') +
  chunk('[{"index":0,"delta":{"content":" hello"},"finish_reason":null}]') +
  chunk('[{"index":0,"delta":{},"finish_reason":"stop"}]') +
  chunk('[]', ',"usage":{"prompt_tokens":16,"completion_tokens":1,"total_tokens":17}') +
  'data: [DONE]\n\n';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

function config(prefix: string, port: number): string {
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
      return 200 '${ANSWER}';
    }
  }
}
`;
}

export interface SseNginx {
  /** `http://127.0.0.1:PORT` */
  readonly url: string;
  stop(): Promise<void>;
}

export async function startSseNginx(cpu?: number): Promise<SseNginx> {
  const prefix = mkdtempSync(join(tmpdir(), 'tokenmeter-nginx-'));
  mkdirSync(join(prefix, 'logs'));
  const port = await freePort();
  writeFileSync(join(prefix, 'nginx.conf'), config(prefix, port));
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
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGQUIT');
      }),
  };
}
