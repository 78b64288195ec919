// Every flag of `vllm bench serve` at the pinned commit (vLLM 009e6d4a; src/cli/vllm-serve-options.ts), one
// table row each: the real CLI against a real upstream on port 0 that keeps every request it gets, and the row
// checks what the flag changed in the requests sent (path, headers, body, how many, when) or in the report, the
// result file or the header lines. A flag that needs what tokenmeter does not have is checked to say so in one
// line. The first test holds the table to vLLM's list: a flag added there and not here fails it.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { arrivalSchedule } from '../../loadgen/arrivals.js';
import { PythonRandom } from '../../loadgen/vllm-random/python-random.js';
import { bench, cleanEnv, scratchDir } from './helpers/bench-cli.js';
import { qwenTokenizerDir } from './helpers/bench-fixtures.js';
import { VLLM_SERVE_FLAGS } from './helpers/vllm-serve-flag-list.js';

interface Captured {
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

/** The upstream: answers /v1/models and streams a 3-token answer to anything POSTed, keeping each request. */
class Upstream {
  readonly requests: Captured[] = [];
  /** Requests still to answer 503 (the ready check's server that is not up yet). */
  failNext = 0;
  inFlight = 0;
  peakInFlight = 0;
  server: Server | undefined;
  url = '';

  handle = (req: IncomingMessage, res: ServerResponse): void => {
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'up-model', root: 'up-model' }] }));
      return;
    }
    let text = '';
    req.on('data', (d: Buffer) => (text += d.toString()));
    req.on('end', () => {
      this.requests.push({ path: req.url ?? '', headers: req.headers, body: JSON.parse(text) });
      if (this.failNext > 0) {
        this.failNext--;
        res.writeHead(503).end('not ready');
        return;
      }
      this.inFlight++;
      this.peakInFlight = Math.max(this.peakInFlight, this.inFlight);
      const chat = (req.url ?? '').includes('chat');
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (i: number): string =>
        JSON.stringify({
          choices: [chat ? { index: 0, delta: { content: `w${i} ` } } : { index: 0, text: `w${i} ` }],
        });
      let i = 0;
      const timer = setInterval(() => {
        if (i < 3) res.write(`data: ${chunk(i++)}\n\n`);
        else {
          clearInterval(timer);
          res.write(
            `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 5, completion_tokens: 3 } })}\n\n`,
          );
          res.end('data: [DONE]\n\n');
          this.inFlight--;
        }
      }, 5);
    });
  };

  async start(tls?: { key: string; cert: string }): Promise<void> {
    this.server = tls === undefined ? createServer(this.handle) : createHttpsServer(tls, this.handle);
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    this.url = `${tls === undefined ? 'http' : 'https'}://127.0.0.1:${port}`;
  }

  reset(): void {
    this.requests.length = 0;
    this.failNext = 0;
    this.peakInFlight = 0;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => {
      this.server?.closeAllConnections();
      this.server?.close(() => resolve());
    });
  }
}

const upstream = new Upstream();
const tlsUpstream = new Upstream();
before(async () => {
  await upstream.start();
  const fixtures = new URL('../../../test/gateway/fixtures/', import.meta.url);
  await tlsUpstream.start({
    key: readFileSync(new URL('localhost.key', fixtures), 'utf8'),
    cert: readFileSync(new URL('localhost.pem', fixtures), 'utf8'),
  });
});
after(async () => {
  await upstream.stop();
  await tlsUpstream.stop();
});

const SHAREGPT = fileURLToPath(
  new URL('../../../test/loadgen/fixtures/vllm-009e6d4a/schedule/sharegpt-60.json', import.meta.url),
);
const VLLM_SHAREGPT_SEED1 = JSON.parse(
  readFileSync(
    new URL('../../../test/loadgen/fixtures/vllm-009e6d4a/schedule/sharegpt-n40-seed1.json', import.meta.url),
    'utf8',
  ),
) as { requests: Array<{ source_id: string }> };
/** vLLM's prefix_repetition at --seed 1: 40 prompts, 3 prefixes of 24 tokens, suffixes of 8, 16 output tokens. */
const VLLM_PREFIX_REPETITION_SEED1 = JSON.parse(
  readFileSync(
    new URL(
      '../../../test/loadgen/fixtures/vllm-009e6d4a/schedule/prefix_repetition-n40-seed1.json',
      import.meta.url,
    ),
    'utf8',
  ),
) as { requests: Array<{ prompt: string }> };
/** vLLM's timed_trace over the committed Mooncake-style trace (timestamps in ms: 100, 400, 700, ...). */
const TIMED_TRACE = [
  '--dataset-name',
  'timed_trace',
  '--dataset-path',
  fileURLToPath(new URL('../../../test/loadgen/fixtures/timed-trace/mooncake-ms.jsonl', import.meta.url)),
];
const PROMPT_OF = new Map(
  (
    JSON.parse(readFileSync(SHAREGPT, 'utf8')) as Array<{
      id: string;
      conversations: Array<{ value: string }>;
    }>
  ).map((e) => [e.id, e.conversations[0]?.value]),
);

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  requests: Captured[];
  dir: string;
  /** The saved result files, parsed (JSON lines for --append-result). */
  results: () => Array<Record<string, unknown>>;
  resultNames: () => string[];
  records: () => Array<{ intendedOffsetMs: number; index: number }>;
}

interface Row {
  /** The vLLM flags this row shows. */
  flags: string[];
  args: string[];
  /** Replace the base arguments (target, model, size) instead of adding to them. */
  alone?: boolean;
  target?: Upstream;
  failFirst?: number;
  check: (run: Run) => void;
}

const body = (run: Run, i = 0): Record<string, unknown> => run.requests[i]?.body ?? {};
const prompts = (run: Run): unknown[] =>
  run.requests.map(
    (r) => (r.body['messages'] as Array<{ content: unknown }> | undefined)?.[0]?.content ?? r.body['prompt'],
  );
const words = (text: unknown): number => String(text).split(' ').length;
const ok = (run: Run): void => assert.equal(run.code, 0, run.stderr);
/** The records' intended send offsets are the seeded schedule's, to the microsecond. */
function assertSentOnSchedule(run: Run, expected: readonly number[]): void {
  const intended = run
    .records()
    .sort((a, b) => a.index - b.index)
    .map((r) => r.intendedOffsetMs);
  assert.equal(intended.length, expected.length);
  for (const [i, at] of intended.entries())
    assert.ok(
      Math.abs(at - (expected[i] as number)) < 1e-3,
      `request ${i}: ${at} ms, schedule ${expected[i]} ms`,
    );
}

const ROWS: Row[] = [
  {
    flags: ['backend'],
    args: ['--backend', 'openai'],
    check: (run) => {
      ok(run);
      assert.equal(run.requests[0]?.path, '/v1/completions');
      assert.equal(typeof body(run)['prompt'], 'string');
      assert.doesNotMatch(run.stderr, /no --backend/);
    },
  },
  {
    flags: [],
    args: ['--endpoint', '/v1/completions'],
    check: (run) => {
      ok(run);
      assert.equal(typeof body(run)['prompt'], 'string');
      // vLLM's default backend differs from ours; the header says which one ran and why.
      assert.match(
        run.stderr,
        /no --backend: openai is used, the one whose bodies fit --endpoint \/v1\/completions \(vLLM's default is --backend openai, completions bodies\)\n/,
      );
    },
  },
  {
    flags: ['base-url', 'endpoint'],
    args: ['--backend', 'vllm', '--endpoint', '/v1/completions'],
    check: (run) => {
      ok(run);
      assert.ok(run.requests.every((r) => r.path === '/v1/completions'));
    },
  },
  {
    flags: ['host', 'port'],
    alone: true,
    args: ['--model', 'm', '--num-prompts', '2'],
    check: (run) => {
      ok(run);
      assert.equal(run.requests.length, 2);
      assert.equal(run.requests[0]?.path, '/v1/chat/completions');
    },
  },
  {
    flags: ['header'],
    args: ['--header', 'x-a=1', 'x-b=two'],
    check: (run) => {
      ok(run);
      assert.equal(run.requests[0]?.headers['x-a'], '1');
      assert.equal(run.requests[0]?.headers['x-b'], 'two');
    },
  },
  {
    flags: ['max-concurrency'],
    args: ['--max-concurrency', '1', '--num-prompts', '4'],
    check: (run) => {
      ok(run);
      assert.match(run.stdout, /\nMaximum request concurrency:\s+1 /);
    },
  },
  {
    flags: ['model'],
    alone: true,
    args: ['--num-prompts', '1'],
    check: (run) => {
      ok(run);
      assert.equal(body(run)['model'], 'up-model'); // no --model: the first of /v1/models
    },
  },
  {
    flags: ['served-model-name'],
    args: ['--served-model-name', 'served-name'],
    check: (run) => assert.equal(body(run)['model'], 'served-name'),
  },
  {
    flags: ['input-len', 'output-len'],
    args: ['--dataset-name', 'random', '--input-len', '12', '--output-len', '5'],
    check: (run) => {
      ok(run);
      assert.ok(prompts(run).every((p) => words(p) === 12));
      assert.equal(body(run)['max_completion_tokens'], 5);
      assert.equal(body(run)['ignore_eos'], true); // vLLM forces it for its random dataset
    },
  },
  {
    flags: ['random-input-len', 'random-output-len', 'random-range-ratio', 'random-prefix-len'],
    args: [
      '--dataset-name',
      'random',
      '--random-input-len',
      '10',
      '--random-output-len',
      '4',
      '--random-range-ratio',
      '0.5',
      '--random-prefix-len',
      '3',
      '--num-prompts',
      '6',
    ],
    check: (run) => {
      ok(run);
      const all = prompts(run).map(String);
      const prefix = all[0]?.split(' ').slice(0, 3).join(' ');
      assert.ok(all.every((p) => p.startsWith(`${prefix} `) && words(p) >= 3 + 5 && words(p) <= 3 + 15));
      assert.ok(run.requests.every((r) => (r.body['max_completion_tokens'] as number) >= 2));
    },
  },
  {
    flags: [
      'prefix-repetition-prefix-len',
      'prefix-repetition-suffix-len',
      'prefix-repetition-num-prefixes',
      'prefix-repetition-output-len',
    ],
    args: [
      '--dataset-name',
      'prefix_repetition',
      '--prefix-repetition-prefix-len',
      '24',
      '--prefix-repetition-suffix-len',
      '8',
      '--prefix-repetition-num-prefixes',
      '3',
      '--prefix-repetition-output-len',
      '16',
      '--seed',
      '1',
      '--num-prompts',
      '40',
      '--max-concurrency',
      '1',
    ],
    check: (run) => {
      ok(run);
      // vLLM's own prompts in vLLM's order; no ignore_eos (vLLM forces it for random only).
      assert.deepEqual(
        prompts(run),
        VLLM_PREFIX_REPETITION_SEED1.requests.map((r) => r.prompt),
      );
      assert.ok(
        run.requests.every((r) => r.body['max_completion_tokens'] === 16 && !('ignore_eos' in r.body)),
      );
      assert.equal(new Set(prompts(run).map((p) => String(p).split(' ').slice(0, 24).join(' '))).size, 3);
    },
  },
  {
    flags: [],
    args: ['--dataset-name', 'prefix_repetition', '--num-prompts', '10', '--output-len', '6'],
    check: (run) => {
      ok(run);
      // vLLM's defaults: 10 prefixes of 256 tokens and suffixes of 256; --output-len stands for the output flag.
      assert.ok(prompts(run).every((p) => words(p) === 512));
      assert.equal(new Set(prompts(run).map((p) => String(p).split(' ').slice(0, 256).join(' '))).size, 10);
      assert.ok(run.requests.every((r) => r.body['max_completion_tokens'] === 6));
    },
  },
  {
    flags: ['dataset-name', 'dataset-path', 'seed', 'num-prompts'],
    args: [
      '--dataset-name',
      'sharegpt',
      '--dataset-path',
      SHAREGPT,
      '--seed',
      '1',
      '--num-prompts',
      '5',
      '--max-concurrency',
      '1',
    ],
    check: (run) => {
      ok(run);
      assert.deepEqual(
        prompts(run),
        VLLM_SHAREGPT_SEED1.requests.slice(0, 5).map((r) => PROMPT_OF.get(r.source_id)),
      );
    },
  },
  {
    flags: ['disable-shuffle'],
    args: ['--dataset-path', SHAREGPT, '--disable-shuffle', '--num-prompts', '2', '--max-concurrency', '1'],
    check: (run) => assert.deepEqual(prompts(run), [PROMPT_OF.get('conv-0'), PROMPT_OF.get('conv-1')]),
  },
  {
    flags: ['no-oversample'],
    args: ['--dataset-path', SHAREGPT, '--no-oversample', '--num-prompts', '70'],
    check: (run) => {
      ok(run);
      assert.equal(run.requests.length, 55); // the 55 entries with two turns, no duplicates
    },
  },
  {
    flags: ['sharegpt-output-len'],
    args: ['--sharegpt-output-len', '7'],
    check: (run) => assert.ok(run.requests.every((r) => r.body['max_completion_tokens'] === 7)),
  },
  {
    flags: ['custom-output-len'],
    args: ['--dataset-name', 'custom', '--dataset-path', '{jsonl}', '--custom-output-len', '9'],
    check: (run) => {
      ok(run);
      assert.ok(run.requests.every((r) => r.body['max_completion_tokens'] === 9));
    },
  },
  {
    flags: ['tokenizer'],
    args: ['--tokenizer', qwenTokenizerDir()],
    check: (run) => {
      ok(run);
      assert.match(run.stderr, /tokenizer: /);
      assert.doesNotMatch(run.stderr, /tokenizer: builtin/);
    },
  },
  {
    flags: ['request-rate', 'burstiness'],
    args: [
      '--request-rate',
      '40',
      '--burstiness',
      '0.5',
      '--seed',
      '3',
      '--num-prompts',
      '8',
      '--save-result',
    ],
    check: (run) => {
      ok(run);
      const expected = arrivalSchedule(8, { requestRate: 40, burstiness: 0.5, seed: 3 }).offsetsMs;
      assertSentOnSchedule(run, expected);
      assert.match(run.stdout, /\nRequest rate configured \(RPS\):\s+40\.00 /);
      assert.equal(run.results()[0]?.['burstiness'], 0.5);
    },
  },
  {
    flags: ['ramp-up-strategy', 'ramp-up-start-rps', 'ramp-up-end-rps'],
    args: [
      '--ramp-up-strategy',
      'linear',
      '--ramp-up-start-rps',
      '20',
      '--ramp-up-end-rps',
      '60',
      '--num-prompts',
      '6',
      '--save-result',
    ],
    check: (run) => {
      ok(run);
      const result = run.results()[0] ?? {};
      assert.equal(result['ramp_up_strategy'], 'linear');
      assert.deepEqual([result['ramp_up_start_rps'], result['ramp_up_end_rps']], [20, 60]);
      assert.ok(Array.isArray(result['rps_change_events']));
      const expected = arrivalSchedule(6, {
        requestRate: Number.POSITIVE_INFINITY,
        burstiness: 1,
        seed: 0,
        rampUp: { strategy: 'linear', startRps: 20, endRps: 60 },
      }).offsetsMs;
      assertSentOnSchedule(run, expected);
    },
  },
  {
    flags: ['ignore-eos'],
    args: ['--ignore-eos'],
    check: (run) => assert.ok(run.requests.every((r) => r.body['ignore_eos'] === true)),
  },
  {
    flags: ['temperature'],
    args: ['--temperature', '0.3'],
    check: (run) => assert.ok(run.requests.every((r) => r.body['temperature'] === 0.3)),
  },
  {
    flags: [],
    args: [],
    check: (run) => {
      ok(run);
      // vLLM no longer forces temperature 0 (PR #32723): none is sent, and the header says so.
      assert.ok(run.requests.every((r) => !('temperature' in r.body) && !('ignore_eos' in r.body)));
      assert.match(run.stderr, /no --temperature: none is sent/);
      assert.match(
        run.stderr,
        /no --backend: openai-chat is used, sending to \/v1\/chat\/completions \(vLLM's default is --backend openai: completions, \/v1\/completions\)\n/,
      );
      assert.match(
        run.stderr,
        /no --dataset-name: the bundled ShareGPT-format sample is sent \(vLLM's default is --dataset-name random/,
      );
    },
  },
  {
    flags: ['top-p', 'top-k', 'min-p', 'frequency-penalty', 'presence-penalty', 'repetition-penalty'],
    args: [
      '--top-p',
      '0.9',
      '--top-k',
      '20',
      '--min-p',
      '0.05',
      '--frequency-penalty',
      '0.1',
      '--presence-penalty',
      '0.2',
      '--repetition-penalty',
      '1.1',
    ],
    check: (run) => {
      ok(run);
      const b = body(run);
      assert.deepEqual(
        [
          b['top_p'],
          b['top_k'],
          b['min_p'],
          b['frequency_penalty'],
          b['presence_penalty'],
          b['repetition_penalty'],
        ],
        [0.9, 20, 0.05, 0.1, 0.2, 1.1],
      );
    },
  },
  {
    flags: ['extra-body'],
    args: ['--top-p', '0.5', '--extra-body', '{"top_p": 0.7, "seed": 4}'],
    check: (run) => {
      assert.equal(body(run)['top_p'], 0.7); // vLLM: {**sampling_params, **extra_body}
      assert.equal(body(run)['seed'], 4);
    },
  },
  {
    flags: ['logprobs'],
    args: ['--backend', 'openai', '--logprobs', '2'],
    check: (run) => assert.equal(body(run)['logprobs'], 2),
  },
  {
    flags: [],
    args: ['--logprobs', '2'],
    check: (run) => {
      assert.ok(!('logprobs' in body(run)));
      assert.match(run.stderr, /--logprobs is sent with completions backends only/);
    },
  },
  {
    flags: ['lora-modules'],
    args: [
      '--dataset-name',
      'random',
      '--random-input-len',
      '8',
      '--lora-modules',
      'la',
      'lb',
      'lc',
      '--num-prompts',
      '6',
      '--seed',
      '7',
    ],
    check: (run) => {
      ok(run);
      const byIndex = [...run.requests].sort((a, b) =>
        String(a.headers['x-request-id']).localeCompare(String(b.headers['x-request-id']), 'en', {
          numeric: true,
        }),
      );
      const random = new PythonRandom(7); // vLLM: random.choice per request after random.seed(7)
      assert.deepEqual(
        byIndex.map((r) => r.body['model']),
        Array.from({ length: 6 }, () => random.choice(['la', 'lb', 'lc'])),
      );
    },
  },
  {
    flags: ['lora-assignment'],
    args: [
      '--lora-modules',
      'la',
      'lb',
      '--lora-assignment',
      'round-robin',
      '--num-prompts',
      '4',
      '--max-concurrency',
      '1',
    ],
    check: (run) =>
      assert.deepEqual(
        run.requests.map((r) => r.body['model']),
        ['la', 'lb', 'la', 'lb'],
      ),
  },
  {
    flags: ['request-id-prefix'],
    args: ['--request-id-prefix', 'pfx-', '--num-prompts', '2', '--max-concurrency', '1'],
    check: (run) =>
      assert.deepEqual(
        run.requests.map((r) => r.headers['x-request-id']),
        ['pfx-0', 'pfx-1'],
      ),
  },
  {
    flags: ['probe-request-rate'],
    args: ['--probe-request-rate', '40', '--request-rate', '20', '--max-concurrency', '1', '--save-result'],
    check: (run) => {
      ok(run);
      // One-token "Hi" probes beside the run, with their own request ids; the run's figures are the run's alone.
      const probes = run.requests.filter((r) => String(r.headers['x-request-id']).includes('probe-'));
      assert.ok(probes.length >= 1, 'a probe went out');
      for (const probe of probes) {
        assert.deepEqual(probe.body['messages'], [{ role: 'user', content: 'Hi' }]);
        assert.equal(probe.body['max_completion_tokens'], 1);
      }
      assert.equal(run.requests.length - probes.length, 3);
      assert.match(run.stderr, /Probe request rate: 40\.0 req\/s/);
      assert.match(run.stdout, /-{18}Probe Requests-{18}\nProbe requests completed: +\d+ *\n/);
      const saved = run.results()[0] ?? {};
      assert.equal(saved['completed'], 3);
      assert.equal(saved['probe_completed'], probes.length);
      assert.equal(saved['probe_failed'], 0);
    },
  },
  {
    flags: ['num-warmups'],
    args: ['--num-warmups', '2', '--num-prompts', '3', '--save-result'],
    check: (run) => {
      ok(run);
      assert.equal(run.requests.length, 5);
      assert.equal(run.results()[0]?.['completed'], 3);
      assert.match(run.stderr, /warm-up done: 2 of 2 succeeded/);
    },
  },
  {
    flags: ['ready-check-timeout-sec'],
    failFirst: 1,
    args: ['--ready-check-timeout-sec', '30', '--num-prompts', '2', '--save-result'],
    check: (run) => {
      ok(run);
      assert.match(run.stderr, /ready check: the first request succeeded \(attempt 2\)/);
      assert.equal(run.results()[0]?.['completed'], 2);
      assert.equal(run.results()[0]?.['failed'], 0);
    },
  },
  {
    flags: [],
    failFirst: 100,
    args: ['--ready-check-timeout-sec', '1', '--num-prompts', '2'],
    check: (run) => {
      assert.equal(run.code, 1);
      assert.match(
        run.stderr,
        /not ready within --ready-check-timeout-sec 1 \(last attempt: http_error, HTTP 503/,
      );
    },
  },
  {
    flags: ['insecure'],
    target: tlsUpstream,
    args: ['--insecure', '--num-prompts', '2', '--save-result'],
    check: (run) => {
      ok(run);
      assert.match(run.stderr, /warning: --insecure: the server's TLS certificate is not verified/);
      assert.equal(run.results()[0]?.['completed'], 2);
    },
  },
  {
    flags: [],
    target: tlsUpstream,
    args: ['--num-prompts', '2', '--save-result', '--no-success-floor'],
    check: (run) => {
      assert.equal(run.requests.length, 0); // the certificate is refused: nothing reaches the server
      assert.equal(run.results()[0]?.['completed'], 0);
    },
  },
  {
    flags: ['label', 'save-result', 'result-dir'],
    args: ['--label', 'my-run', '--save-result'],
    check: (run) => {
      assert.ok(
        run.resultNames().some((n) => /^my-run-infqps-m-\d{8}-\d{6}\.json$/.test(n)),
        run.resultNames().join(),
      );
      assert.equal(run.results()[0]?.['label'], 'my-run');
      assert.ok(!('ttfts' in (run.results()[0] ?? {})));
      assert.ok('latencies' in (run.results()[0] ?? {}));
    },
  },
  {
    flags: ['save-detailed', 'result-filename', 'metadata'],
    args: ['--save-detailed', '--result-filename', 'named.json', '--metadata', 'gpu=none', 'tp=1'],
    check: (run) => {
      const result = run.results()[0] ?? {};
      assert.deepEqual(run.resultNames(), ['named.json']);
      assert.equal((result['ttfts'] as unknown[]).length, 3);
      assert.deepEqual([result['gpu'], result['tp']], ['none', '1']);
    },
  },
  {
    flags: ['plot-timeline', 'timeline-itl-thresholds'],
    args: ['--plot-timeline', '--timeline-itl-thresholds', '2,5', '--result-filename', 'timed.json'],
    check: (run) => {
      ok(run);
      // vLLM's name for its plot: the result's with .timeline.html (test/loadgen/plot-timeline.test.ts has more).
      const html = readFileSync(join(run.dir, 'timed.timeline.html'), 'utf8');
      assert.match(html, /data-chart="timeline"/);
      assert.match(html, /--timeline-itl-thresholds 2,5/);
    },
  },
  {
    flags: ['append-result'],
    args: ['--append-result', '--result-filename', 'appended.json'],
    check: (run) => {
      ok(run);
      // vLLM's form: one JSON value per line (a second run appends a line after a newline).
      const text = readFileSync(join(run.dir, 'appended.json'), 'utf8');
      assert.equal(text.split('\n').length, 1);
      assert.equal(run.results()[0]?.['completed'], 3);
    },
  },
  {
    flags: ['percentile-metrics', 'metric-percentiles', 'goodput'],
    args: [
      '--percentile-metrics',
      'ttft,e2el',
      '--metric-percentiles',
      '50,90',
      '--goodput',
      'ttft:60000',
      'e2el:60000',
    ],
    check: (run) => {
      ok(run);
      assert.match(run.stdout, /\nRequest goodput \(req\/s\):\s+[\d.]+/);
      assert.match(run.stdout, /\nP50 TTFT \(ms\):.*\nP90 TTFT \(ms\):/);
      assert.match(run.stdout, /-End-to-end Latency-/);
      assert.doesNotMatch(run.stdout, /Inter-token Latency/);
    },
  },
  {
    flags: ['disable-tqdm'],
    args: ['--disable-tqdm'],
    check: (run) => assert.doesNotMatch(run.stderr, /\nprogress: /),
  },
  {
    flags: [],
    args: [],
    check: (run) => assert.match(run.stderr, /\nprogress: /), // without --disable-tqdm: the progress lines
  },
  {
    flags: ['self-timed', 'timed-trace-sec-multiplier'],
    args: [...TIMED_TRACE, '--self-timed', '--timed-trace-sec-multiplier', '0.001', '--request-rate', '50'],
    check: (run) => {
      ok(run);
      // The first 3 lines at their timestamps in ms (absolute, as vLLM), --request-rate ignored as vLLM ignores it.
      assertSentOnSchedule(run, [100, 400, 700]);
      assert.match(run.stderr, /--self-timed: the trace's timestamps are the schedule and --request-rate/);
      assert.ok(run.requests.every((r) => r.body['ignore_eos'] === true));
    },
  },
  {
    flags: ['no-self-timed'],
    args: [...TIMED_TRACE, '--no-self-timed'],
    check: (run) => {
      ok(run);
      assertSentOnSchedule(run, [0, 0, 0]); // the run's rate, inf: all at once
      // The default backend here is chat, which vLLM refuses for timed_trace; this sends the prompts as text.
      assert.match(run.stderr, /timed_trace: vLLM refuses backends other than openai and vllm/);
      assert.equal(typeof prompts(run)[0], 'string');
    },
  },
  {
    flags: [
      'timed-trace-chunk-hash-size',
      'timed-trace-label-timestamp',
      'timed-trace-label-input-length',
      'timed-trace-label-output-length',
      'timed-trace-label-hash-ids',
    ],
    args: [
      '--dataset-name',
      'timed_trace',
      '--dataset-path',
      '{labelled}',
      '--timed-trace-chunk-hash-size',
      '8',
      '--timed-trace-label-timestamp',
      't',
      '--timed-trace-label-input-length',
      'in',
      '--timed-trace-label-output-length',
      'out',
      '--timed-trace-label-hash-ids',
      'ids',
    ],
    check: (run) => {
      ok(run);
      // 8 tokens per id: 12 tokens over 2 ids, and 12 over 1 id ends with the id (8).
      assert.deepEqual(prompts(run).map(words), [12, 8]);
      assert.deepEqual(
        run.requests.map((r) => r.body['max_completion_tokens'] ?? r.body['max_tokens']),
        [2, 3],
      );
      assertSentOnSchedule(run, [0, 20]);
    },
  },
  {
    flags: [],
    args: ['--self-timed'],
    check: (run) => {
      assert.equal(run.code, 2);
      assert.match(run.stderr, /--self-timed\/--no-self-timed apply to --dataset-name timed_trace only/);
      assert.equal(run.requests.length, 0);
    },
  },
  {
    flags: [],
    args: ['--timed-trace-chunk-hash-size', '3'],
    check: (run) => {
      ok(run);
      assert.match(
        run.stderr,
        /--timed-trace-chunk-hash-size applies to --dataset-name timed_trace only and changes nothing here/,
      );
    },
  },
  {
    flags: [],
    args: ['--dataset-name', 'sonnet'],
    check: (run) => {
      assert.equal(run.code, 2);
      assert.match(
        run.stderr,
        /--dataset-name sonnet is one of vLLM's datasets that tokenmeter does not have/,
      );
    },
  },
  {
    flags: ['chat-template-kwargs'],
    args: ['--chat-template-kwargs', '{"enable_thinking": false}'],
    check: (run) => {
      ok(run);
      assert.match(
        run.stderr,
        /--chat-template-kwargs is accepted: vLLM applies it when it renders a chat template client-side/,
      );
      assert.ok(!('chat_template_kwargs' in body(run)));
    },
  },
  {
    flags: ['trust-remote-code'],
    args: ['--trust-remote-code'],
    check: (run) => assert.match(run.stderr, /--trust-remote-code is accepted and changes nothing/),
  },
];

/** The accepted-only flags, all in one run: each must say in one line what it would do and that it did not. */
const ACCEPTED_ONLY: Array<[string, string[]]> = [
  ['tokenizer-mode', ['hf']],
  ['use-beam-search', []],
  ['profile', []],
  ['plot-dataset-stats', []],
  ['skip-tokenizer-init', []],
  ['no-stream', []],
  ['skip-chat-template', []],
  ['enable-multimodal-chat', []],
  ['custom-ensure-client-side-data', []],
  ['random-batch-size', ['4']],
  ['no-reranker', []],
  ...[
    'spec-bench-output-len',
    'sonnet-input-len',
    'sonnet-output-len',
    'sonnet-prefix-len',
    'random-mm-base-items-per-request',
    'hf-output-len',
    'speed-bench-output-len',
  ].map((flag): [string, string[]] => [flag, ['3']]),
  ...[
    'blazedit-min-distance',
    'blazedit-max-distance',
    'asr-max-audio-len-sec',
    'asr-min-audio-len-sec',
    'random-mm-num-mm-items-range-ratio',
  ].map((flag): [string, string[]] => [flag, ['0.5']]),
  ...[
    'spec-bench-category',
    'random-mm-limit-mm-per-prompt',
    'random-mm-bucket-config',
    'hf-subset',
    'hf-split',
    'hf-name',
    'bfcl-categories',
    'speed-bench-dataset-subset',
    'speed-bench-category',
  ].map((flag): [string, string[]] => [flag, ['x']]),
];

test('the table covers every flag of vllm bench serve 009e6d4a, and nothing else', () => {
  const covered = [...ROWS.flatMap((row) => row.flags), ...ACCEPTED_ONLY.map(([flag]) => flag)];
  assert.deepEqual([...new Set(covered)].sort(), [...VLLM_SERVE_FLAGS].sort());
});

let jsonl = '';
/** A timed trace with its own field names: seconds, 8-token blocks. */
let labelled = '';
before(() => {
  const dir = scratchDir();
  jsonl = join(dir, 'prompts.jsonl');
  writeFileSync(jsonl, ['{"prompt": "one two three four"}', '{"prompt": "five six seven eight"}'].join('\n'));
  labelled = join(dir, 'labelled.jsonl');
  writeFileSync(
    labelled,
    ['{"t": 0, "in": 12, "out": 2, "ids": [1, 2]}', '{"t": 0.02, "in": 12, "out": 3, "ids": [1]}'].join('\n'),
  );
});

async function run(row: Pick<Row, 'args' | 'alone' | 'target' | 'failFirst'>): Promise<Run> {
  const target = row.target ?? upstream;
  target.reset();
  target.failNext = row.failFirst ?? 0;
  const dir = scratchDir();
  const port = new URL(upstream.url).port;
  const base = row.alone
    ? ['--host', '127.0.0.1', '--port', port]
    : ['--base-url', target.url, '--model', 'm', '--num-prompts', '3'];
  const args = [
    ...base,
    '--result-dir',
    dir,
    ...row.args.map((a) => (a === '{jsonl}' ? jsonl : a === '{labelled}' ? labelled : a)),
  ];
  const result = await bench(args, cleanEnv());
  const files = (): string[] => readdirSync(dir).filter((n) => n.endsWith('.json'));
  return {
    ...result,
    requests: [...target.requests],
    dir,
    resultNames: files,
    results: () =>
      files().flatMap((name) =>
        readFileSync(join(dir, name), 'utf8')
          .split(/\n(?=\{)/)
          .map((text) => JSON.parse(text) as Record<string, unknown>),
      ),
    records: () =>
      readdirSync(dir)
        .filter((n) => n.endsWith('.records.jsonl'))
        .flatMap((name) => readFileSync(join(dir, name), 'utf8').trim().split('\n'))
        .map((line) => JSON.parse(line) as { intendedOffsetMs: number; index: number }),
  };
}

for (const row of ROWS) {
  const name =
    row.flags.length > 0 ? row.flags.map((f) => `--${f}`).join(' ') : `(${row.args.join(' ') || 'no flag'})`;
  test(`${name}: ${row.args.join(' ')}`, async () => row.check(await run(row)));
}

test('every accepted-only flag is taken and says, in one line, what it would do and that it did not', async () => {
  const result = await run({ args: ACCEPTED_ONLY.flatMap(([flag, values]) => [`--${flag}`, ...values]) });
  assert.equal(result.code, 0, result.stderr);
  for (const [flag] of ACCEPTED_ONLY)
    assert.match(result.stderr, new RegExp(`\\nnote: --${flag} is accepted and changes nothing: `), flag);
  assert.equal(result.requests.length, 3);
});
