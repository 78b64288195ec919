// `top`'s frames from /metrics pages: pages written out with known counts (so every figure on the frame has one
// right answer), and pages recorded from a real gateway before and after traffic sent by the test.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { request } from 'undici';
import { readGatewayPage } from '../../src/top/gateway-reading.js';
import { renderFrame } from '../../src/top/render-frame.js';
import { SlidingWindow } from '../../src/top/sliding-window.js';
import { topRows } from '../../src/top/top-rows.js';
import { startGateway } from '../gateway/helpers/gateway.js';
import { sendShortChatStream, startUpstream } from '../gateway/helpers/upstream.js';

interface PageCounts {
  ok: number;
  httpErrors: number;
  outputTokens: number;
  /** Cumulative TTFT bucket counts at le=0.1, le=0.2 and +Inf. */
  ttft: [number, number, number];
  inFlight: number;
}

/** A gateway page as prom-client writes it, for upstream `u` and model `m`. */
function page(counts: PageCounts): string {
  const series = 'upstream="u",model="m"';
  return [
    '# HELP tokenmeter_requests_total Requests finished',
    '# TYPE tokenmeter_requests_total counter',
    `tokenmeter_requests_total{${series},outcome="ok",status_class="2xx"} ${counts.ok}`,
    `tokenmeter_requests_total{${series},outcome="http_error",status_class="5xx"} ${counts.httpErrors}`,
    '# TYPE tokenmeter_tokens_total counter',
    `tokenmeter_tokens_total{${series},type="input"} 999999`,
    `tokenmeter_tokens_total{${series},type="output"} ${counts.outputTokens}`,
    '# TYPE tokenmeter_time_to_first_token_seconds histogram',
    `tokenmeter_time_to_first_token_seconds_bucket{le="0.1",${series}} ${counts.ttft[0]}`,
    `tokenmeter_time_to_first_token_seconds_bucket{le="0.2",${series}} ${counts.ttft[1]}`,
    `tokenmeter_time_to_first_token_seconds_bucket{le="+Inf",${series}} ${counts.ttft[2]}`,
    '# TYPE tokenmeter_requests_in_flight gauge',
    `tokenmeter_requests_in_flight ${counts.inFlight}`,
    '',
  ].join('\n');
}

const URL_A = 'http://127.0.0.1:1/metrics';
const URL_B = 'http://127.0.0.1:2/metrics';

function reading(url: string, atMs: number, text: string) {
  const parsed = readGatewayPage(url, atMs, text);
  assert.ok(parsed, 'a gateway page is read');
  return parsed;
}

test('a frame from two pages ten seconds apart: rates, success, TTFT quantiles as histogram_quantile reads them', () => {
  const window = new SlidingWindow(10);
  window.add(
    reading(URL_A, 0, page({ ok: 1000, httpErrors: 7, outputTokens: 5000, ttft: [10, 20, 20], inFlight: 3 })),
  );
  const later = { ok: 1099, httpErrors: 8, outputTokens: 7500, ttft: [60, 120, 120], inFlight: 4 } as const;
  const latest = reading(URL_A, 10_000, page({ ...later, ttft: [...later.ttft] }));
  window.add(latest);
  const [row, ...others] = topRows([window.increaseOf(URL_A)], 'rps');
  assert.equal(others.length, 0);
  assert.ok(row);
  assert.equal(row.requestsPerSecond, 10); // 100 finished in 10 s
  assert.equal(row.successRatio, 0.99);
  // 100 new observations: 50 at or under 100 ms, 50 more under 200 ms.
  assert.equal(row.ttftP50Ms, 100);
  assert.ok(Math.abs((row.ttftP99Ms ?? 0) - 198) < 1e-9, `p99 ${row.ttftP99Ms}`);
  assert.equal(row.gapP99Ms, null);
  assert.equal(row.outputTokensPerSecond, 250); // input tokens are not output
  assert.deepEqual(row.errors, [{ outcome: 'http_error', count: 1 }]);

  const lines = renderFrame({
    at: new Date('2026-12-03T12:00:00Z'),
    scrapes: [{ ok: true, reading: latest }],
    rows: [row],
    windowSeconds: 10,
    sortKey: 'rps',
  });
  assert.deepEqual(lines, [
    'tokenmeter top  12:00:00 UTC  window 10.0 s  sorted by rps',
    'gateway http://127.0.0.1:1/metrics  4 in flight',
    '',
    'UPSTREAM  MODEL  REQ/S  SUCCESS  TTFT P50  TTFT P99  GAP P99  OUT TOK/S  ERRORS',
    'u         m       10.0    99.0%    100 ms    198 ms        -        250  http_error 1',
  ]);
});

test('a counter that went down (the gateway restarted) counts its new value, as PromQL increase() does', () => {
  const window = new SlidingWindow(10);
  window.add(
    reading(URL_A, 0, page({ ok: 500, httpErrors: 0, outputTokens: 100, ttft: [5, 5, 5], inFlight: 0 })),
  );
  window.add(
    reading(URL_A, 5_000, page({ ok: 20, httpErrors: 0, outputTokens: 40, ttft: [20, 20, 20], inFlight: 0 })),
  );
  const [row] = topRows([window.increaseOf(URL_A)], 'rps');
  assert.equal(row?.requestsPerSecond, 4);
  assert.equal(row?.outputTokensPerSecond, 8);
});

test('readings older than the window stop counting; the newest one before it is the base', () => {
  const window = new SlidingWindow(2);
  const counts = (ok: number): PageCounts => ({
    ok,
    httpErrors: 0,
    outputTokens: 0,
    ttft: [0, 0, 0],
    inFlight: 0,
  });
  for (const [atMs, ok] of [
    [0, 0],
    [1000, 100],
    [2000, 110],
    [3000, 120],
    [4000, 130],
  ] as const) {
    window.add(reading(URL_A, atMs, page(counts(ok))));
  }
  const increase = window.increaseOf(URL_A);
  assert.equal(increase.seconds, 2);
  assert.equal(topRows([increase], 'rps')[0]?.requestsPerSecond, 10);
});

test('replicas add up: two gateways with the same upstream and model make one row', () => {
  const window = new SlidingWindow(10);
  const counts = (ok: number, le01: number): PageCounts => ({
    ok,
    httpErrors: 0,
    outputTokens: ok * 10,
    ttft: [le01, ok, ok],
    inFlight: 0,
  });
  window.add(reading(URL_A, 0, page(counts(0, 0))));
  window.add(reading(URL_B, 0, page(counts(0, 0))));
  window.add(reading(URL_A, 10_000, page(counts(30, 30)))); // all under 100 ms
  window.add(reading(URL_B, 10_000, page(counts(70, 0)))); // all 100-200 ms
  const rows = topRows([window.increaseOf(URL_A), window.increaseOf(URL_B)], 'rps');
  assert.equal(rows.length, 1);
  assert.equal(rows[0]?.requestsPerSecond, 10);
  assert.equal(rows[0]?.outputTokensPerSecond, 100);
  // Buckets are summed before the quantile: rank 50 of 100 lies in the second bucket (30 below it).
  assert.ok(Math.abs((rows[0]?.ttftP50Ms ?? 0) - (100 + (100 * 20) / 70)) < 1e-9);
});

test('a page that is not a gateway page is not read', () => {
  assert.equal(
    readGatewayPage(URL_A, 0, '# TYPE vllm_num_requests_running gauge\nvllm_num_requests_running 3\n'),
    null,
  );
});

test('pages recorded from a real gateway: the frame counts exactly the requests the test sent', async (t) => {
  const upstream = await startUpstream((_req, res, body) => {
    const { model } = JSON.parse(body.toString('utf8')) as { model: string };
    if (model === 'broken') {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"boom"}}');
    } else sendShortChatStream(res);
  });
  t.after(() => upstream.close());
  const gateway = await startGateway({
    upstreams: [{ name: 'local', baseUrl: upstream.url, keyless: true }],
  });
  t.after(() => gateway.close());
  const metricsUrl = `${gateway.url}/metrics`;
  const scrape = async () => (await request(metricsUrl)).body.text();

  const before = await scrape();
  const send = (model: string) =>
    request(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    }).then((answer) => answer.body.text());
  await Promise.all([...Array.from({ length: 6 }, () => send('good')), send('broken'), send('broken')]);
  await gateway.recordsAfter(8);
  const after = await scrape();

  // The pages' own times are replaced by a 4 s gap, so every rate has one right value.
  const window = new SlidingWindow(10);
  window.add(reading(metricsUrl, 0, before));
  window.add(reading(metricsUrl, 4000, after));
  const rows = topRows([window.increaseOf(metricsUrl)], 'name');
  const good = rows.find((row) => row.model === 'good');
  const broken = rows.find((row) => row.model === 'broken');
  assert.equal(good?.upstream, 'local');
  assert.equal(good?.requestsPerSecond, 1.5);
  assert.equal(good?.successRatio, 1);
  assert.notEqual(good?.ttftP50Ms, null);
  assert.equal(good?.outputTokensPerSecond, 1.5); // one content chunk ('hi') each, counted without usage
  assert.equal(broken?.requestsPerSecond, 0.5);
  assert.equal(broken?.successRatio, 0);
  assert.deepEqual(broken?.errors, [{ outcome: 'http_error', count: 2 }]);
});
