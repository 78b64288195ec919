// The system under observation: a simulator (named like vLLM) behind a real gateway, both on 127.0.0.1:0, and a
// round of traffic that reaches every label the dashboard and the contract care about cheaply: streamed and
// non-streamed chat, streamed completions, a client path the gateway fixes, and an upstream 4xx (http_error).
import assert from 'node:assert/strict';
import { type RunningSimulator, startSimulator } from '../../../src/sim/index.js';
import { startGateway, type TestGateway } from '../../gateway/helpers/gateway.js';

export interface Stack {
  readonly sim: RunningSimulator;
  readonly gateway: TestGateway;
  readonly model: string;
  /** Requests the gateway has finished so far (all rounds). */
  finished(): number;
  close(): Promise<void>;
}

export async function startStack(): Promise<Stack> {
  // Fast and jitter-free: the tests are about what gets exported, not about latency.
  const sim = await startSimulator({ timing: { ttftMs: 5, itlMs: 2, jitter: 0 } });
  const model = sim.config.servedModelNames[0] ?? '';
  // Priced, so tokenmeter_cost_total has a series to check.
  const prices = { [model]: { inputPerMillion: 0.5, outputPerMillion: 1.5, currency: 'USD' } };
  const gateway = await startGateway({
    upstreams: [{ name: 'sim', baseUrl: `${sim.url}/v1`, keyless: true, default: true, prices }],
  });
  return {
    sim,
    gateway,
    model,
    finished: () => gateway.records.length,
    async close() {
      await gateway.close();
      await sim.close();
    },
  };
}

interface Call {
  readonly path: string;
  readonly body: Record<string, unknown>;
  readonly status: number;
}

function roundOfCalls(model: string): Call[] {
  const messages = [{ role: 'user', content: 'Say something short.' }];
  return [
    { path: '/v1/chat/completions', body: { model, messages, max_tokens: 6, stream: true }, status: 200 },
    { path: '/v1/chat/completions', body: { model, messages, max_tokens: 4, stream: true }, status: 200 },
    { path: '/v1/chat/completions', body: { model, messages, max_tokens: 5 }, status: 200 },
    {
      path: '/v1/completions',
      body: { model, prompt: 'Once upon', max_tokens: 5, stream: true },
      status: 200,
    },
    // Base URL without /v1: counted in tokenmeter_path_fixes_total{fix="missing_v1"}.
    { path: '/chat/completions', body: { model, messages, max_tokens: 3 }, status: 200 },
    // Over the simulator's context length: a 400 from the upstream, outcome http_error, status_class 4xx.
    { path: '/v1/chat/completions', body: { model, messages, max_tokens: 1_000_000 }, status: 400 },
  ];
}

/** Sends one round and waits until the gateway has finished (and metered) every request of it. */
export async function driveRound(stack: Stack): Promise<number> {
  const before = stack.finished();
  const calls = roundOfCalls(stack.model);
  for (const call of calls) {
    const response = await fetch(`${stack.gateway.url}${call.path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(call.body),
    });
    await response.text();
    assert.equal(response.status, call.status, `${call.path} ${JSON.stringify(call.body)}`);
  }
  await stack.gateway.recordsAfter(before + calls.length);
  return calls.length;
}

export async function scrape(baseUrl: string): Promise<string> {
  const response = await fetch(`${baseUrl}/metrics`);
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /^text\/plain/);
  return response.text();
}
