// /metrics: Prometheus names with the tokenmeter_ prefix, one registry per gateway, buckets from 0.1 ms to
// 1000 s, and model labels capped so clients cannot grow the label set.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { SAMPLED_LAG_GAUGES } from '../../src/gateway/metrics/gateway-metrics.js';
import { startGateway, type TestGateway } from './helpers/gateway.js';
import { chatStreamSteps, playScript, startUpstream, type TestUpstream } from './helpers/upstream.js';

let upstream: TestUpstream;
let gateway: TestGateway;

before(async () => {
  upstream = await startUpstream((_req, res) => playScript(res, chatStreamSteps(3, 1, 1, true), []));
  gateway = await startGateway({
    upstreams: [{ name: 'sim', baseUrl: upstream.url, keyless: true, models: ['known'], default: true }],
    metricsMaxModels: 2,
  });
});
after(async () => {
  await gateway.close();
  await upstream.close();
});

async function scrape(g: TestGateway): Promise<string> {
  const response = await request(`${g.url}/metrics`);
  assert.match(String(response.headers['content-type']), /text\/plain/);
  return response.body.text();
}

test('requests, timings and tokens are exported with bounded model labels', async () => {
  for (const model of ['known', 'a', 'b', 'c', 'd', 'known']) {
    const response = await request(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': `metrics-${model}` },
      body: JSON.stringify({ model, stream: true }),
    });
    await response.body.text();
  }
  await gateway.recordsAfter(6);
  const text = await scrape(gateway);
  assert.match(
    text,
    /tokenmeter_requests_total\{upstream="sim",model="known",role="primary",outcome="ok",status_class="2xx"\} 2/,
  );
  assert.match(
    text,
    /tokenmeter_requests_total\{upstream="sim",model="other",role="primary",outcome="ok",status_class="2xx"\} 2/,
  );
  const models = new Set([...text.matchAll(/model="([^"]*)"/g)].map((m) => m[1]));
  assert.deepEqual(
    [...models].sort(),
    ['a', 'b', 'known', 'other'],
    'configured names plus the first 2 others',
  );
  assert.ok(!text.includes('metrics-known'), 'request ids never become labels');
  for (const name of [
    'tokenmeter_time_to_first_token_seconds_bucket',
    'tokenmeter_time_to_first_byte_seconds_bucket',
    'tokenmeter_inter_token_gap_seconds_bucket',
    'tokenmeter_time_per_output_token_seconds_bucket',
    'tokenmeter_request_duration_seconds_bucket',
    'tokenmeter_gateway_overhead_seconds_bucket',
    'tokenmeter_upstream_connection_wait_seconds_bucket',
    'tokenmeter_requests_in_flight 0',
    'tokenmeter_records_lost_total{reason="disk_full"} 0',
    'tokenmeter_records_lost_total{reason="write_error"} 0',
    'tokenmeter_records_lost_total{reason="queue_full"} 0',
    // prom-client's default process metrics, in the gateway's own registry, prefixed.
    'tokenmeter_process_cpu_seconds_total',
    'tokenmeter_process_resident_memory_bytes',
    'tokenmeter_nodejs_eventloop_lag_seconds',
  ]) {
    assert.ok(text.includes(name), name);
  }
  assert.match(
    text,
    /tokenmeter_inter_token_gap_seconds_bucket\{le="0\.0001",upstream="sim",model="known",role="primary"\}/,
  );
  assert.match(
    text,
    /tokenmeter_request_duration_seconds_bucket\{le="1000",upstream="sim",model="known",role="primary"\}/,
  );
  assert.match(
    text,
    /tokenmeter_tokens_total\{upstream="sim",model="known",role="primary",type="output"\} 6/,
  );
  assert.match(
    text,
    /tokenmeter_inter_token_gap_seconds_count\{upstream="sim",model="known",role="primary"\} 4/,
  );
});

/** The value of an unlabelled family on a metrics page. */
function familyValue(page: string, name: string): number {
  const line = page.split('\n').find((l) => l.startsWith(`${name} `));
  assert.ok(line !== undefined, `${name} on the page`);
  return Number(line.slice(name.length + 1));
}

test("the event loop's busy time is a counter read at the scrape; the sampled delay gauges are gone", async () => {
  const before = familyValue(await scrape(gateway), 'tokenmeter_eventloop_busy_seconds_total');
  // The gateway runs in this process: 60 ms spent in one callback are 60 ms of the loop's busy time.
  const until = performance.now() + 60;
  while (performance.now() < until) {
    // busy on purpose
  }
  const page = await scrape(gateway);
  const busy = familyValue(page, 'tokenmeter_eventloop_busy_seconds_total') - before;
  assert.ok(busy >= 0.06, `busy ${busy} s across a 60 ms callback`);
  assert.ok(page.includes('tokenmeter_nodejs_eventloop_lag_seconds '), 'the scrape-time lag gauge stays');
  for (const name of SAMPLED_LAG_GAUGES) assert.ok(!page.includes(name), `${name} is not exported`);
});

test('each gateway has its own registry: a second gateway in the process starts at zero', async (t) => {
  const second = await startGateway({ upstreams: [{ name: 'sim', baseUrl: upstream.url, keyless: true }] });
  t.after(() => second.close());
  const text = await scrape(second);
  assert.ok(!text.includes('tokenmeter_requests_total{'), 'no requests counted yet');
});
