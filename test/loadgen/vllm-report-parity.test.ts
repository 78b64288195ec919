// vLLM 009e6d4a's summary and result JSON, checked label for label and key for key. The fixtures
// (fixtures/vllm-009e6d4a/results/, README there) were written by vLLM's own request function, metrics and
// report code sending to tokenmeter's simulator: for each case, what vLLM printed (.summary.txt), what it saved
// (.json), its settings (.args.json) and the measured outputs it computed them from (.outputs.json). Our
// metrics and report code, given those outputs as records, must print the same block byte for byte and save
// the same keys in the same order, with the same values.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { extraMetrics } from '../../loadgen/metrics/extra-metrics.js';
import {
  parseGoodput,
  parseMetricPercentiles,
  parsePercentileMetrics,
} from '../../loadgen/metrics/metric-options.js';
import { vllmMetrics } from '../../loadgen/metrics/vllm-metrics.js';
import type { RequestRecord } from '../../loadgen/record.js';
import { buildResultJson } from '../../loadgen/report/result-json.js';
import { formatVllmSummary } from '../../loadgen/report/vllm-summary.js';
import { readServerPage, type ServerReading } from '../../loadgen/server-metrics/server-reading.js';
import { specDecodeBetween } from '../../loadgen/server-metrics/spec-decode.js';
import { record } from './helpers/records-fixture.js';

const folder = new URL('../../../test/loadgen/fixtures/vllm-009e6d4a/results/', import.meta.url);
const read = (name: string): string => readFileSync(new URL(name, folder), 'utf8');

interface Args {
  label: string | null;
  model: string;
  num_prompts: number;
  metadata: string[] | null;
  request_rate: number | 'inf';
  burstiness: number;
  max_concurrency: number | null;
  ramp_up_strategy: 'linear' | 'exponential' | null;
  ramp_up_start_rps: number | null;
  ramp_up_end_rps: number | null;
  save_detailed: boolean;
  goodput: string[] | null;
  percentile_metrics: string;
  metric_percentiles: string;
}

interface Outputs {
  duration: number;
  outputs: Array<{
    success: boolean;
    prompt_len: number;
    output_tokens: number;
    ttft: number;
    itl: number[];
    latency: number;
    start_time: number;
    client_queue_time: number;
    error: string;
  }>;
}

/** vLLM's outputs as our records: seconds to ms, start times from the first send. */
function recordsOf(outputs: Outputs): RequestRecord[] {
  const origin = Math.min(...outputs.outputs.map((o) => o.start_time));
  return outputs.outputs.map((o, index) =>
    record({
      index,
      sentAtMs: (o.start_time - origin) * 1000,
      intendedOffsetMs: (o.start_time - origin) * 1000,
      clientQueueMs: o.client_queue_time * 1000,
      outcome: o.success ? 'ok' : 'http_error',
      status: o.success ? 200 : 400,
      error: o.success ? null : o.error,
      promptTokens: o.prompt_len,
      outputTokens: o.success ? o.output_tokens : 0,
      ttftMs: o.success ? o.ttft * 1000 : null,
      itlMs: o.success ? o.itl.map((gap) => gap * 1000) : [],
      lastTokenMs: o.success ? o.latency * 1000 : null,
      contentChunks: o.success ? o.itl.length + 1 : 0,
    }),
  );
}

const CASES = ['default-detailed', 'concurrency-rate-goodput', 'not-detailed', 'ramp-up'];

for (const name of CASES) {
  const args = JSON.parse(read(`${name}.args.json`)) as Args;
  const outputs = JSON.parse(read(`${name}.outputs.json`)) as Outputs;
  const theirs = JSON.parse(read(`${name}.json`)) as Record<string, unknown>;
  const records = recordsOf(outputs);
  const requestRate = args.request_rate === 'inf' ? Number.POSITIVE_INFINITY : args.request_rate;
  const metricPercentiles = parseMetricPercentiles(args.metric_percentiles);
  const percentileMetrics = parsePercentileMetrics(args.percentile_metrics);
  const goodput = args.goodput === null ? undefined : parseGoodput(args.goodput);
  const metrics = vllmMetrics(records, {
    durationMs: outputs.duration * 1000,
    metricPercentiles,
    ...(goodput === undefined ? {} : { goodput }),
    ...(args.max_concurrency === null ? {} : { maxConcurrency: args.max_concurrency }),
    requestRate,
  });

  test(`${name}: the summary block is vLLM's, byte for byte`, () => {
    const ours = formatVllmSummary(metrics, {
      requestRate,
      percentileMetrics,
      ...(args.max_concurrency === null ? {} : { maxConcurrency: args.max_concurrency }),
    });
    assert.equal(ours, read(`${name}.summary.txt`));
  });

  test(`${name}: the result JSON has vLLM's keys in vLLM's order, with its values`, () => {
    const metadata = Object.fromEntries(
      (args.metadata ?? []).map((pair) => [
        pair.slice(0, pair.indexOf('=')),
        pair.slice(pair.indexOf('=') + 1),
      ]),
    );
    const ours = buildResultJson(
      {
        date: new Date(),
        backend: 'openai',
        ...(args.label === null ? {} : { label: args.label }),
        modelId: args.model,
        tokenizerId: args.model,
        numPrompts: args.num_prompts,
        requestRate,
        burstiness: args.burstiness,
        ...(args.max_concurrency === null ? {} : { maxConcurrency: args.max_concurrency }),
        ...(args.ramp_up_strategy === null
          ? {}
          : {
              rampUp: {
                strategy: args.ramp_up_strategy,
                startRps: args.ramp_up_start_rps as number,
                endRps: args.ramp_up_end_rps as number,
              },
            }),
        metadata,
        percentileMetrics,
      },
      metrics,
      extraMetrics(records, metricPercentiles),
      records,
      args.save_detailed,
    );
    const { tokenmeter: _ours, ...vllmKeys } = ours;
    assert.deepEqual(Object.keys(vllmKeys), Object.keys(theirs));
    for (const [key, value] of Object.entries(theirs)) {
      const mine = vllmKeys[key];
      if (key === 'date' || key === 'rps_change_events') continue; // wall-clock times of the run
      if (key === 'start_times') continue; // perf_counter readings there, offsets from the first send here
      if (typeof value === 'number')
        assert.ok(
          Math.abs((mine as number) - value) <= 1e-9 * Math.max(1, Math.abs(value)),
          `${key}: ours ${String(mine)}, vLLM's ${value}`,
        );
      else if (key === 'itls' || key === 'latencies' || key === 'queue_times' || key === 'ttfts')
        assert.deepEqual(
          JSON.stringify(mine, (_k, v: unknown) => (typeof v === 'number' ? Number(v.toPrecision(9)) : v)),
          JSON.stringify(value, (_k, v: unknown) => (typeof v === 'number' ? Number(v.toPrecision(9)) : v)),
          key,
        );
      else if (key !== 'generated_texts' && key !== 'errors') assert.deepEqual(mine, value, key);
    }
    if (Array.isArray(theirs['rps_change_events']))
      assert.deepEqual(
        (vllmKeys['rps_change_events'] as Array<{ rps: number }>).map((e) => e.rps),
        (theirs['rps_change_events'] as Array<{ rps: number }>).map((e) => e.rps),
      );
  });
}

// vLLM's "Speculative Decoding" section and spec_decode_* keys. No fixture from vLLM's code covers them (its
// client prints them only against a server that drafts); the expected lines are serve.py's format at the pinned
// commit applied to these counters: the header centred in 50 '-', the rates "{:<40} {:<10.2f}", the counts
// "{:<40} {:<10}", then each draft position in percent. Before the run one engine; after it two, summed.
const page = (lines: readonly string[]): ServerReading => {
  const reading = readServerPage(`${lines.join('\n')}\n`);
  assert.ok(reading !== null);
  return reading;
};
const engine = (e: number, extra = ''): string => `{model_name="m",engine="${e}"${extra}}`;
const before = page([
  `vllm:spec_decode_num_drafts_total${engine(0)} 10`,
  `vllm:spec_decode_num_draft_tokens_total${engine(0)} 30`,
  `vllm:spec_decode_num_accepted_tokens_total${engine(0)} 20`,
  `vllm:spec_decode_num_accepted_tokens_per_pos_total${engine(0, ',position="0"')} 9`,
  `vllm:spec_decode_num_accepted_tokens_per_pos_total${engine(0, ',position="1"')} 7`,
  `vllm:spec_decode_num_accepted_tokens_per_pos_total${engine(0, ',position="2"')} 4`,
]);
const after = page([
  `vllm:spec_decode_num_drafts_total${engine(0)} 70`,
  `vllm:spec_decode_num_drafts_total${engine(1)} 60`,
  `vllm:spec_decode_num_draft_tokens_total${engine(0)} 210`,
  `vllm:spec_decode_num_draft_tokens_total${engine(1)} 180`,
  `vllm:spec_decode_num_accepted_tokens_total${engine(0)} 137`,
  `vllm:spec_decode_num_accepted_tokens_total${engine(1)} 100`,
  `vllm:spec_decode_num_accepted_tokens_per_pos_total${engine(0, ',position="0"')} 60`,
  `vllm:spec_decode_num_accepted_tokens_per_pos_total${engine(1, ',position="0"')} 45`,
  `vllm:spec_decode_num_accepted_tokens_per_pos_total${engine(0, ',position="1"')} 44`,
  `vllm:spec_decode_num_accepted_tokens_per_pos_total${engine(1, ',position="1"')} 33`,
  `vllm:spec_decode_num_accepted_tokens_per_pos_total${engine(0, ',position="2"')} 33`,
  `vllm:spec_decode_num_accepted_tokens_per_pos_total${engine(1, ',position="2"')} 22`,
]);
const SPEC_DECODE_SECTION = [
  '---------------Speculative Decoding---------------',
  'Acceptance rate (%):                     60.28     ',
  'Acceptance length:                       2.81      ',
  'Drafts:                                  120       ',
  'Draft tokens:                            360       ',
  'Accepted tokens:                         217       ',
  'Per-position acceptance (%):',
  '  Position 0:                            80.00     ',
  '  Position 1:                            58.33     ',
  '  Position 2:                            42.50     ',
];

test("speculative decoding: vLLM's section after the latency ones, and its spec_decode_* keys in its place", () => {
  const specDecode = specDecodeBetween(before, after);
  assert.ok(specDecode !== undefined);
  const name = 'not-detailed';
  const args = JSON.parse(read(`${name}.args.json`)) as Args;
  const outputs = JSON.parse(read(`${name}.outputs.json`)) as Outputs;
  const records = recordsOf(outputs);
  const metricPercentiles = parseMetricPercentiles(args.metric_percentiles);
  const percentileMetrics = parsePercentileMetrics(args.percentile_metrics);
  const maxConcurrency = args.max_concurrency as number;
  const requestRate = Number.POSITIVE_INFINITY;
  const metrics = vllmMetrics(records, {
    durationMs: outputs.duration * 1000,
    metricPercentiles,
    maxConcurrency,
    requestRate,
  });
  const options = { requestRate, percentileMetrics, maxConcurrency };
  const without = read(`${name}.summary.txt`).split('\n');
  const closing = without.lastIndexOf('='.repeat(50));
  const expected = [...without.slice(0, closing), ...SPEC_DECODE_SECTION, ...without.slice(closing)].join(
    '\n',
  );
  assert.equal(formatVllmSummary(metrics, options, { specDecode }), expected);

  const run = {
    date: new Date(),
    backend: 'openai',
    modelId: args.model,
    tokenizerId: args.model,
    numPrompts: args.num_prompts,
    requestRate,
    burstiness: args.burstiness,
    maxConcurrency,
    percentileMetrics,
  };
  const extra = extraMetrics(records, metricPercentiles);
  const json = buildResultJson(run, metrics, extra, records, false, [], {}, { specDecode });
  const keys = Object.keys(json);
  const at = keys.indexOf('rtfx') + 1;
  assert.deepEqual(keys.slice(at, at + 6), [
    'spec_decode_acceptance_rate',
    'spec_decode_acceptance_length',
    'spec_decode_num_drafts',
    'spec_decode_draft_tokens',
    'spec_decode_accepted_tokens',
    'spec_decode_per_position_acceptance_rates',
  ]);
  assert.ok(keys[at + 6]?.startsWith('mean_'), 'the latency keys follow');
  assert.equal(json['spec_decode_acceptance_rate'], (217 / 360) * 100);
  assert.equal(json['spec_decode_acceptance_length'], 1 + 217 / 120);
  assert.deepEqual(
    [json['spec_decode_num_drafts'], json['spec_decode_draft_tokens'], json['spec_decode_accepted_tokens']],
    [120, 360, 217],
  );
  assert.deepEqual(json['spec_decode_per_position_acceptance_rates'], [96 / 120, 70 / 120, 51 / 120]);
  // Without the section, neither lines nor keys (vLLM's own fixtures above have none).
  assert.ok(
    !Object.keys(buildResultJson(run, metrics, extra, records, false)).some((k) => k.startsWith('spec_')),
  );
});

// vLLM's "Probe Requests" section (--probe-request-rate), by the same hand from serve.py's format strings: after the
// throughputs, before the latency sections; its probe_* keys after rtfx, before the spec_decode_* ones.
const PROBE_SECTION = [
  '------------------Probe Requests------------------',
  'Probe requests completed:                7         ',
  'Probe requests failed:                   1         ',
  'Median probe E2EL (ms):                  42.61     ',
  'P99 probe E2EL (ms):                     8999.08   ',
  'Max probe E2EL (ms):                     9497.81   ',
];

test("probes: vLLM's section after the throughputs, and its probe_* keys before the spec_decode_* ones", () => {
  const probes = {
    completed: 7,
    failed: 1,
    medianE2elMs: 42.6149,
    p99E2elMs: 8999.0812,
    maxE2elMs: 9497.805,
  };
  const specDecode = specDecodeBetween(before, after);
  assert.ok(specDecode !== undefined);
  const name = 'default-detailed';
  const args = JSON.parse(read(`${name}.args.json`)) as Args;
  const outputs = JSON.parse(read(`${name}.outputs.json`)) as Outputs;
  const records = recordsOf(outputs);
  const metricPercentiles = parseMetricPercentiles(args.metric_percentiles);
  const percentileMetrics = parsePercentileMetrics(args.percentile_metrics);
  const requestRate = Number.POSITIVE_INFINITY;
  const metrics = vllmMetrics(records, {
    durationMs: outputs.duration * 1000,
    metricPercentiles,
    requestRate,
  });
  const without = read(`${name}.summary.txt`).split('\n');
  const throughputs = without.findIndex((line) => line.startsWith('Total token throughput (tok/s):')) + 1;
  const closing = without.lastIndexOf('='.repeat(50));
  const expected = [
    ...without.slice(0, throughputs),
    ...PROBE_SECTION,
    ...without.slice(throughputs, closing),
    ...SPEC_DECODE_SECTION,
    ...without.slice(closing),
  ].join('\n');
  assert.equal(
    formatVllmSummary(metrics, { requestRate, percentileMetrics }, { probes, specDecode }),
    expected,
  );

  const run = {
    date: new Date(),
    backend: 'openai',
    modelId: args.model,
    tokenizerId: args.model,
    numPrompts: args.num_prompts,
    requestRate,
    burstiness: args.burstiness,
    percentileMetrics,
  };
  const json = buildResultJson(
    run,
    metrics,
    extraMetrics(records, metricPercentiles),
    records,
    true,
    [],
    {},
    {
      probes,
      specDecode,
    },
  );
  const keys = Object.keys(json);
  const at = keys.indexOf('rtfx') + 1;
  assert.deepEqual(keys.slice(at, at + 6), [
    'probe_completed',
    'probe_failed',
    'probe_median_e2el_ms',
    'probe_p99_e2el_ms',
    'probe_max_e2el_ms',
    'spec_decode_acceptance_rate',
  ]);
  assert.deepEqual(
    [json['probe_completed'], json['probe_failed'], json['probe_median_e2el_ms'], json['probe_max_e2el_ms']],
    [7, 1, 42.6149, 9497.805],
  );
});
