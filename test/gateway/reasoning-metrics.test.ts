// A reasoning model's requests on the gateway's /metrics: the TTFO histogram
// (tokenmeter_time_to_first_output_token_seconds) holds each request's TTFO, bucket for bucket, and the token
// counter's `reasoning` series adds up the reasoning tokens the simulator streamed. One request told not to reason
// (x-sim-reasoning-tokens: 0) shows TTFO equal to TTFT and adds no reasoning tokens.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import type { RequestRecord } from '../../src/gateway/records/record.js';
import { parseSamples, type Sample } from '../../src/shared/prometheus-text.js';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { startGateway, type TestGateway } from './helpers/gateway.js';

const REASONING_TOKENS = 4;
const REASONED = 3;
const TTFO = 'tokenmeter_time_to_first_output_token_seconds';

let sim: RunningSimulator;
let gateway: TestGateway;
let records: RequestRecord[];
let samples: Sample[];

before(async () => {
  sim = await startSimulator({
    timing: { ttftMs: 10, itlMs: 5, jitter: 0 },
    reasoning: { tokens: REASONING_TOKENS, chatField: 'reasoning_content' },
  });
  gateway = await startGateway({ upstreams: [{ name: 'sim', baseUrl: `${sim.url}/v1`, keyless: true }] });
  for (let i = 0; i <= REASONED; i++) {
    const res = await request(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-request-id': `reasoning-metrics-${i}`,
        // The last one is a plain answer.
        ...(i === REASONED ? { 'x-sim-reasoning-tokens': '0' } : {}),
      },
      body: JSON.stringify({
        model: 'tokenmeter/sim-7b',
        stream: true,
        max_tokens: 9,
        ignore_eos: true,
        messages: [{ role: 'user', content: 'think first' }],
      }),
    });
    await res.body.text();
  }
  records = await gateway.recordsAfter(REASONED + 1);
  const page = await request(`${gateway.url}/metrics`);
  samples = parseSamples(await page.body.text(), (name) => name.startsWith('tokenmeter_'));
});

after(async () => {
  await gateway.close();
  await sim.close();
});

const value = (name: string, labels: Record<string, string> = {}): number | undefined =>
  samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;

test("the TTFO histogram holds each request's TTFO, bucket for bucket", () => {
  assert.equal(records.length, REASONED + 1);
  const ttfos = records.map((r) => r.ttfoMs as number);
  assert.ok(
    ttfos.every((t) => typeof t === 'number'),
    'every request has a TTFO',
  );
  assert.equal(value(`${TTFO}_count`), ttfos.length);
  const sum = value(`${TTFO}_sum`) as number;
  assert.ok(Math.abs(sum - ttfos.reduce((a, b) => a + b, 0) / 1000) < 1e-9, `sum ${sum}`);
  const buckets = samples.filter((s) => s.name === `${TTFO}_bucket`);
  assert.ok(buckets.length > 10, 'the first-token buckets');
  for (const bucket of buckets) {
    const le = bucket.labels['le'] === '+Inf' ? Number.POSITIVE_INFINITY : Number(bucket.labels['le']);
    assert.equal(bucket.value, ttfos.filter((t) => t / 1000 <= le).length, `le=${bucket.labels['le']}`);
  }
  // The reasoning requests answered after their first token; the plain one at it.
  for (const record of records) {
    const plain = record.requestId === `reasoning-metrics-${REASONED}`;
    if (plain) assert.equal(record.ttfoMs, record.ttftMs);
    else assert.ok((record.ttfoMs as number) > (record.ttftMs as number), record.requestId);
  }
  const ttftSum = value('tokenmeter_time_to_first_token_seconds_sum') as number;
  assert.ok(sum > ttftSum, `TTFO sum ${sum} above the TTFT sum ${ttftSum}`);
});

test('the reasoning token counter adds up the reasoning tokens the simulator streamed', () => {
  const truth = records.map((r) => sim.truth(r.requestId)?.reasoningTokens ?? -1);
  assert.deepEqual(truth.sort(), [0, REASONING_TOKENS, REASONING_TOKENS, REASONING_TOKENS]);
  assert.equal(value('tokenmeter_tokens_total', { type: 'reasoning' }), REASONED * REASONING_TOKENS);
  // Reasoning counts within output, as usage's completion_tokens counts it.
  assert.equal(value('tokenmeter_tokens_total', { type: 'output' }), (REASONED + 1) * 9);
});
