// The result JSON: vLLM's file name and keys (ms summaries, seconds in arrays), our extras under "tokenmeter".
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { extraMetrics } from '../../loadgen/metrics/extra-metrics.js';
import { vllmMetrics } from '../../loadgen/metrics/vllm-metrics.js';
import {
  buildResultJson,
  formatResultDate,
  parseMetadataPairs,
  resultFileName,
} from '../../loadgen/report/result-json.js';
import { UsageError } from '../../src/shared/user-facing-error.js';
import { RECORDS, RUN_DURATION_MS } from './helpers/records-fixture.js';

const DATE = new Date(2025, 0, 2, 3, 4, 5); // local time, as vLLM's datetime.now()

test('file name follows vLLM: {label}-{rate}qps[-concurrency{N}]-{model basename}-{date}.json', () => {
  const base = { date: DATE, backend: 'openai-chat', modelId: 'Qwen/Qwen2.5-7B-Instruct' };
  assert.equal(formatResultDate(DATE), '20250102-030405');
  assert.equal(
    resultFileName({ ...base, requestRate: 1 }),
    'openai-chat-1.0qps-Qwen2.5-7B-Instruct-20250102-030405.json',
  );
  assert.equal(
    resultFileName({ ...base, requestRate: Number.POSITIVE_INFINITY, maxConcurrency: 32, label: 'night' }),
    'night-infqps-concurrency32-Qwen2.5-7B-Instruct-20250102-030405.json',
  );
  assert.equal(
    resultFileName({ ...base, modelId: 'gpt2', requestRate: 0.5 }),
    'openai-chat-0.5qps-gpt2-20250102-030405.json',
  );
});

test('result JSON carries vLLM keys (ms summaries, seconds in detailed arrays) and our extras apart', () => {
  const metrics = vllmMetrics(RECORDS, { durationMs: RUN_DURATION_MS, metricPercentiles: [99, 99.9] });
  const extra = extraMetrics(RECORDS, [99]);
  const run = {
    date: DATE,
    backend: 'vllm',
    modelId: 'meta-llama/Llama-3.1-8B',
    tokenizerId: 'meta-llama/Llama-3.1-8B',
    numPrompts: 4,
    requestRate: Number.POSITIVE_INFINITY,
    burstiness: 1,
    metadata: parseMetadataPairs(['gpu=H100', 'note=a=b']),
    percentileMetrics: ['ttft', 'itl'] as const,
  };
  const json = buildResultJson(run, metrics, extra, RECORDS, false);
  assert.deepEqual(Object.keys(json).slice(0, 12), [
    'date',
    'endpoint_type',
    'backend',
    'label',
    'model_id',
    'tokenizer_id',
    'num_prompts',
    'gpu',
    'note',
    'request_rate',
    'burstiness',
    'max_concurrency',
  ]);
  assert.equal(json['request_rate'], 'inf');
  assert.equal(json['max_concurrency'], null);
  assert.equal(json['request_goodput'], null);
  assert.equal(json['note'], 'a=b');
  assert.equal(json['completed'], 3);
  assert.equal(json['mean_ttft_ms'], 200);
  assert.equal(json['p99_itl_ms'], 100);
  assert.ok('p99.9_ttft_ms' in json);
  assert.ok(!('mean_tpot_ms' in json), 'only --percentile-metrics are saved');
  assert.ok(!('ttfts' in json), 'detailed arrays only with --save-detailed');
  const tokenmeter = json['tokenmeter'] as Record<string, unknown>;
  assert.equal(tokenmeter['success_rate'], 0.75);
  assert.deepEqual(Object.keys(tokenmeter['failures_by_kind'] as object), ['http_error']);

  const detailed = buildResultJson(run, metrics, extra, RECORDS, true);
  assert.deepEqual(detailed['ttfts'], [0.1, 0.2, 0.3, 0]);
  assert.deepEqual(detailed['itls'], [[0.05, 0.05, 0.1], [0.1], [], []]);
  assert.deepEqual(detailed['output_lens'], [4, 3, 1, 0]);
  assert.deepEqual(detailed['errors'], [
    '',
    '',
    '',
    '404 Not Found: {"error": {"message": "no route /v1/v1/completions"}}',
  ]);
  assert.doesNotThrow(() => JSON.stringify(detailed));
});

test('--metadata needs KEY=VALUE', () => {
  assert.throws(() => parseMetadataPairs(['novalue']), UsageError);
});
