// A client that leaves mid-stream aborts the upstream request at once: the upstream (a purpose-built one, and
// the simulator through its ground truth) sees the connection close within milliseconds, and the request gets
// exactly one record, `client_abort`.
//
// Bound: the client's socket close reaches the gateway over loopback, the gateway aborts undici's request, and
// that close reaches the upstream over loopback: two hops and two event-loop turns. Measured on the 2-core
// development box: 0.5-3 ms. We allow 100 ms so a loaded CI box passes, while "at the next token" (1 s apart
// here) or "never" fails.
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { startSimulator } from '../../src/sim/index.js';
import { startGateway, type TestGateway } from './helpers/gateway.js';
import { chatStreamSteps, playScript, startUpstream, type TestUpstream } from './helpers/upstream.js';

const BOUND_MS = 100;
let upstream: TestUpstream;

before(async () => {
  upstream = await startUpstream((_req, res) => playScript(res, chatStreamSteps(10, 50, 1000, false), []));
});
after(() => upstream.close());

async function readFirstChunkThenLeave(gateway: TestGateway, id: string): Promise<number> {
  const controller = new AbortController();
  const response = await request(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-request-id': id },
    body: JSON.stringify({
      model: 'tokenmeter/sim-7b',
      stream: true,
      max_tokens: 50,
      messages: [{ role: 'user', content: 'hi' }],
    }),
    signal: controller.signal,
  });
  let leftAt = 0;
  try {
    for await (const chunk of response.body) {
      if (String(chunk).includes('"content":"') && !String(chunk).includes('"content":""')) {
        leftAt = performance.now();
        controller.abort();
      }
    }
  } catch {
    // the abort we caused
  }
  return leftAt;
}

test('leaving mid-stream closes the upstream request within the bound, recorded as client_abort', async (t) => {
  const gateway = await startGateway({ upstreams: [{ name: 'u', baseUrl: upstream.url, keyless: true }] });
  t.after(() => gateway.close());
  const leftAt = await readFirstChunkThenLeave(gateway, 'abort-1');
  const [record] = await gateway.recordsAfter(1);
  const received = upstream.requests.at(-1);
  await waitFor(() => received?.closedEarlyAtMs !== undefined);
  const propagation = (received?.closedEarlyAtMs ?? Number.NaN) - leftAt;
  t.diagnostic(`abort reached the upstream ${propagation.toFixed(3)} ms after the client left`);
  assert.ok(propagation >= 0 && propagation < BOUND_MS, `${propagation} ms`);
  assert.equal(record?.outcome, 'client_abort');
  assert.equal(gateway.records.length, 1);
});

test('the simulator sees the cancel in its ground truth', async (t) => {
  const sim = await startSimulator({ timing: { ttftMs: 50, itlMs: 1000, jitter: 0 } });
  t.after(() => sim.close());
  const gateway = await startGateway({
    upstreams: [{ name: 'sim', baseUrl: `${sim.url}/v1`, keyless: true }],
  });
  t.after(() => gateway.close());
  const leftAt = await readFirstChunkThenLeave(gateway, 'abort-sim');
  await waitFor(() => sim.truth('abort-sim')?.cancelled === true);
  const truth = sim.truth('abort-sim');
  const propagation = (truth?.cancelledAtMs ?? Number.NaN) - leftAt;
  t.diagnostic(`simulator saw the cancel ${propagation.toFixed(3)} ms after the client left`);
  assert.ok(propagation >= 0 && propagation < BOUND_MS, `${propagation} ms`);
  assert.ok((truth?.completionTokens ?? 99) < 5, 'generation stopped early');
  const [record] = await gateway.recordsAfter(1);
  assert.equal(record?.outcome, 'client_abort');
});

async function waitFor(condition: () => boolean): Promise<void> {
  const deadline = performance.now() + 2000;
  while (!condition() && performance.now() < deadline) await new Promise((r) => setTimeout(r, 5));
}
