// The server-metrics reader on /metrics pages of vLLM's V1 and V0 engines and of SGLang, rendered from each
// release's metric definitions (fixtures/server-metrics/README.md says how): each figure under the newest name
// the page has, summed over engines, a share taken from the fullest engine, histograms by bucket.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { readServerPage } from '../../loadgen/server-metrics/server-reading.js';

const page = (name: string): string =>
  readFileSync(new URL(`../../../test/loadgen/fixtures/server-metrics/${name}`, import.meta.url), 'utf8');

test("vLLM V1's page: the new names are read, not the deprecated ones beside them", () => {
  const reading = readServerPage(page('vllm-v1-005a810.prom'));
  assert.ok(reading !== null);
  assert.equal(reading.family, 'vllm');
  assert.equal(reading.names['kvUsage'], 'vllm:kv_cache_usage_perc');
  assert.equal(reading.names['prefixQueries'], 'vllm:prefix_cache_queries_total');
  assert.deepEqual(reading.gauges, { kvUsage: 0.973, running: 48, waiting: 17, prefixHitRate: null });
  assert.equal(reading.counters.preemptions, 23);
  assert.equal(reading.counters.prefixQueries, 120000);
  assert.equal(reading.counters.prefixHits, 40000);
  assert.equal(reading.counters.specDrafts, null);
  const ttft = reading.histograms.ttft;
  assert.ok(ttft !== null);
  assert.equal(ttft.length, 23, '22 bounds and +Inf');
  assert.deepEqual(ttft.at(-1), { le: Number.POSITIVE_INFINITY, count: 100 });
  assert.equal(ttft.find((b) => b.le === 0.1)?.count, 40);
  assert.equal(reading.histograms.queueTime?.at(-1)?.count, 100);
});

test("vLLM V1 with two engines and speculative decoding: counts summed, KV usage the fullest engine's", () => {
  const reading = readServerPage(page('vllm-v1-005a810-dp2-spec.prom'));
  assert.ok(reading !== null);
  assert.equal(reading.gauges.running, 48 + 31);
  assert.equal(reading.gauges.waiting, 17);
  assert.equal(reading.gauges.kvUsage, 0.973);
  assert.equal(reading.counters.prefixHits, 60000);
  assert.equal(reading.counters.specDrafts, 18000);
  assert.equal(reading.counters.specDraftTokens, 54000);
  assert.equal(reading.counters.specAcceptedTokens, 37800);
  assert.equal(reading.histograms.ttft?.at(-1)?.count, 180);
});

test("vLLM V0's page: the old KV name, preemptions, and no prefix counters or queue histogram", () => {
  const reading = readServerPage(page('vllm-v0-00c33e8.prom'));
  assert.ok(reading !== null);
  assert.equal(reading.names['kvUsage'], 'vllm:gpu_cache_usage_perc');
  assert.equal(reading.gauges.kvUsage, 0.991);
  assert.equal(reading.counters.preemptions, 7);
  assert.equal(reading.counters.prefixQueries, null);
  assert.equal(reading.histograms.queueTime, null);
  assert.equal(reading.histograms.ttft?.length, 17);
  assert.equal(reading.histograms.ttft?.at(-1)?.count, 100);
});

test("SGLang's page: token usage as KV usage, the queue, the hit-rate gauge and both histograms", () => {
  const reading = readServerPage(page('sglang-93d0487.prom'));
  assert.ok(reading !== null);
  assert.equal(reading.family, 'sglang');
  assert.deepEqual(reading.gauges, { kvUsage: 0.88, running: 64, waiting: 9, prefixHitRate: 0.42 });
  assert.equal(reading.counters.preemptions, null);
  assert.equal(reading.histograms.queueTime?.at(-1)?.count, 100);
  assert.equal(reading.histograms.ttft?.find((b) => b.le === 0.2)?.count, 60);
});

test("a page without vLLM's or SGLang's names is not a server page; a server's page before its first sample is", () => {
  assert.equal(
    readServerPage('# TYPE tokenmeter_requests_total counter\ntokenmeter_requests_total 3\n'),
    null,
  );
  const fresh = readServerPage(
    '# HELP vllm:num_requests_running Number of requests in model execution batches.\n# TYPE vllm:num_requests_running gauge\n',
  );
  assert.ok(fresh !== null);
  assert.equal(fresh.family, 'vllm');
  assert.equal(fresh.gauges.running, null);
});
