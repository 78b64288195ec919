// bench's "Server metrics" section prints a figure only when the server's page exported it: a page missing some
// of vLLM's metrics gives a section without their rows (no "not exported" rows), keeping its header line, its
// sample count and its scrape cost. The page is served for real on port 0 and read by the run's own scraper.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  formatServerSection,
  serverMetricsRun,
} from '../../loadgen/server-metrics/server-metrics-feature.js';
import { ServerMetricsScraper } from '../../loadgen/server-metrics/server-scraper.js';
import { seriesOfScrape } from '../../loadgen/server-metrics/server-series.js';

/**
 * The section for a run that read `baseline` then `page` (a baseline and a last sample, as a run without pause
 * between); histograms count what was observed between the two.
 */
async function sectionFor(page: string, baseline = page): Promise<string[]> {
  let served = 0;
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end(served++ === 0 ? baseline : page);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
    const scraper = await ServerMetricsScraper.start({ url, intervalMs: 60_000 }, url);
    const scrape = await scraper.finish();
    const run = serverMetricsRun(
      seriesOfScrape(scrape, performance.now()),
      scrape.url,
      scrape.unavailable ?? '',
    );
    return formatServerSection(run, { p50Ms: 12, p99Ms: 30 });
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

const label = (line: string): string => line.split(':')[0] ?? '';

test('a page with only KV usage and the waiting queue: their rows, and none for what it lacks', async () => {
  const lines = await sectionFor(
    [
      '# TYPE vllm:num_requests_waiting gauge',
      'vllm:num_requests_waiting{engine="0",model_name="m"} 3',
      '# TYPE vllm:kv_cache_usage_perc gauge',
      'vllm:kv_cache_usage_perc{engine="0",model_name="m"} 0.25',
      '',
    ].join('\n'),
  );
  assert.match(lines[0] ?? '', /^-+ Server metrics \(vllm \/metrics\) -+$/, 'the header line stays');
  assert.deepEqual(lines.slice(1).map(label), [
    'Samples',
    'Peak KV cache usage',
    'Max requests waiting',
    'Scrape cost (CPU per sample)',
  ]);
  assert.match(lines.join('\n'), /Peak KV cache usage: +25\.0%/);
  assert.match(lines.join('\n'), /Max requests waiting: +3$/m);
  for (const line of lines) assert.doesNotMatch(line, /not exported/);
});

test("vLLM's full page keeps the rows of everything it exports", async () => {
  const page = readFileSync(
    fileURLToPath(
      new URL('../../../test/loadgen/fixtures/server-metrics/vllm-v1-005a810.prom', import.meta.url),
    ),
    'utf8',
  );
  const labels = (await sectionFor(page)).map(label);
  for (const row of ['Peak KV cache usage', 'Preemptions', 'Max requests running', 'Max requests waiting'])
    assert.ok(labels.includes(row), `${row} in ${labels.join(', ')}`);
});

test('a quantile in the first bucket reads "under" its bound, not a value interpolated from 0', async () => {
  // Over the run, 20 requests queued under 0.3 s (vLLM's first queue-time bucket) and had a TTFT of 0.1-0.25 s.
  const page = (n: number): string =>
    [
      '# TYPE vllm:request_queue_time_seconds histogram',
      `vllm:request_queue_time_seconds_bucket{model_name="m",le="0.3"} ${n}`,
      `vllm:request_queue_time_seconds_bucket{model_name="m",le="0.5"} ${n}`,
      `vllm:request_queue_time_seconds_bucket{model_name="m",le="+Inf"} ${n}`,
      `vllm:request_queue_time_seconds_sum{model_name="m"} ${n * 0.0005}`,
      `vllm:request_queue_time_seconds_count{model_name="m"} ${n}`,
      '# TYPE vllm:time_to_first_token_seconds histogram',
      'vllm:time_to_first_token_seconds_bucket{model_name="m",le="0.1"} 0',
      `vllm:time_to_first_token_seconds_bucket{model_name="m",le="0.25"} ${n}`,
      `vllm:time_to_first_token_seconds_bucket{model_name="m",le="+Inf"} ${n}`,
      `vllm:time_to_first_token_seconds_sum{model_name="m"} ${n * 0.15}`,
      `vllm:time_to_first_token_seconds_count{model_name="m"} ${n}`,
      '',
    ].join('\n');
  const text = (await sectionFor(page(20), page(0))).join('\n');
  assert.match(
    text,
    /Server queue time P50\/P99 \(ms\): +under 300 \(first bucket\) \/ under 300 \(first bucket\)$/m,
  );
  assert.match(text, /Server TTFT P50 \(ms\): +[\d.]+ \(bucket 100-250\), client 12\.00$/m);
});
