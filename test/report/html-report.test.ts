// The run report page: its charts, verdicts from saved records, and a result saved without --save-detailed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RequestRecord } from '../../loadgen/record.js';
import { timelineChart } from '../../loadgen/report/html/timeline-chart.js';
import { renderHtmlReport } from '../../loadgen/report/html/write-html-report.js';
import { recordsFromResult } from '../../loadgen/report/result-records.js';
import { resultVerdicts } from '../../loadgen/report/result-verdicts.js';
import { sweepFromSummary } from '../../loadgen/report/sweep-data.js';
import { localRun, sweepData } from './helpers/report-fixtures.js';
import { okRecord, resultOf, syntheticRecords } from './helpers/synthetic-run.js';

function chartIds(html: string): string[] {
  return [
    ...html.matchAll(/<figure class="chart" id="chart-[^"]+" data-chart="([^"]+)"(?! data-empty)/g),
  ].map((m) => m[1] ?? '');
}

test('a detailed result gives the six run charts, and the server metrics against the client TTFT', () => {
  const html = renderHtmlReport('run', { result: localRun().json });
  assert.deepEqual(chartIds(html), [
    'ttft-cdf',
    'e2el-cdf',
    'itl-histogram',
    'ttft-over-time',
    'concurrency-over-time',
    'tokens-per-second',
    'timeline',
    'server-client-ttft',
    'server-queue',
    'server-kv',
  ]);
  assert.ok(html.includes('Server metrics against the client'));
  assert.ok(html.includes('>KV cache usage (%)</text>'));
  for (const label of ['TTFT (ms)', 'E2E latency (ms)', 'output tokens/s (tok/s)', 'requests in flight']) {
    assert.ok(html.includes(`>${label}</text>`), `axis label ${label}`);
  }
  assert.ok(html.includes('<th>Request rate (req/s)</th><td class="num">4</td>'), 'settings shown');
  assert.ok(html.includes('data-kind="failures"'), 'verdicts shown');
});

test('records rebuilt from a saved file give the same verdicts as the live records', () => {
  const records = [okRecord(0, 0, 100, [10, 10]), okRecord(1, 10, 100, [10]), okRecord(2, 20, 900, [10])];
  const saved = resultOf(records);
  const rebuilt = recordsFromResult(saved);
  assert.deepEqual(
    rebuilt?.map((r) => [r.sentAtMs, r.ttftMs, r.lastTokenMs, r.outputTokens, r.outcome]),
    records.map((r) => [r.sentAtMs, r.ttftMs, r.lastTokenMs, r.outputTokens, r.outcome]),
  );
  assert.deepEqual(
    resultVerdicts(saved, rebuilt).list.map((v) => v.kind),
    ['ttft-spread'],
  );
});

test('a result saved without --save-detailed still reports figures and says which charts need it', () => {
  const summaryOnly = resultOf([okRecord(0, 0, 100, [10])], { detailed: false });
  const html = renderHtmlReport('run', { result: summaryOnly });
  assert.deepEqual(chartIds(html), []);
  assert.match(html, /No per-request data: run the benchmark with --save-result --save-detailed/);
  assert.match(
    html,
    /saved without --save-detailed, so the TTFT-spread and schedule-lag checks could not be made/,
  );
  assert.ok(html.includes('<th>Mean TTFT (ms)</th><td>100.00</td>'));
});

test('a sweep report marks the knee on every rate chart, draws the Pareto chart and lists every level', () => {
  const html = renderHtmlReport('sweep', sweepData());
  assert.deepEqual(chartIds(html), [
    'sweep-achieved',
    'sweep-ttft',
    'sweep-throughput',
    'sweep-success',
    'sweep-pareto',
  ]);
  assert.equal(html.match(/class="marker"/g)?.length, 4);
  assert.match(html, /Knee at 8 req\/s: above it/);
  assert.equal(html.match(/<tr><td class="num">/g)?.length, 5);
});

test('a chart with no data is one line saying so, with no axes: the Pareto chart of levels without a TPOT', () => {
  const data = sweepData();
  const html = renderHtmlReport('sweep', {
    ...data,
    levels: data.levels.map((l) => ({ ...l, tpotMeanMs: null })),
  });
  const pareto = html.match(/<figure class="chart" id="chart-sweep-pareto"[^>]*>.*?<\/figure>/s)?.[0] ?? '';
  assert.match(pareto, /data-empty="true"/);
  assert.match(
    pareto,
    /<p class="message">Throughput against interactivity, one point per level \(Pareto frontier\): no data to draw\.<\/p>/,
  );
  assert.doesNotMatch(pareto, /<svg/);
});

test("the timeline colours each gap by the thresholds, consecutive gaps of one colour one segment, vLLM's colours", () => {
  const [record] = syntheticRecords({ count: 1, seed: 1, ratePerS: 1, ttftMs: 100, gapMs: 3 });
  const html = timelineChart(
    [{ ...(record as RequestRecord), sentAtMs: 0, ttftMs: 100, itlMs: [1, 3, 3, 10, 1] }],
    [2, 5],
  );
  const segments = [
    ...html.matchAll(/<rect class="mark ([^"]+)" x="([^"]+)" y="[^"]+" width="([^"]+)"[^>]* fill="([^"]+)"/g),
  ];
  assert.deepEqual(
    segments.map((m) => [m[1], m[4]]),
    [
      ['ttft', '#636EFA'],
      ['gap band-0', '#109618'],
      ['gap band-1', '#FF7F0E'],
      ['gap band-2', '#D62728'],
      ['gap band-0', '#109618'],
    ],
  );
  // The two 3 ms gaps are one segment, twice as wide as one 3 ms gap would be: 6 ms against the 1 ms gap's 1.
  const widths = segments.map((m) => Number(m[3]));
  assert.ok(Math.abs((widths[2] as number) / (widths[1] as number) - 6) < 0.05, `${widths}`);
});

test('the timeline with no completed request is one line, not empty axes', () => {
  const html = timelineChart([]);
  assert.equal(
    html,
    '<p class="message" data-chart="timeline" data-empty="true">No timeline: no completed request with a send time and a first token.</p>',
  );
});

test('a sweep summary is read from flat levels or result objects, with the knee as a rate or an object', () => {
  const flat = sweepFromSummary('s.json', {
    levels: [
      { rate: 2, achieved_rate: 1.9, success_rate: 1, ttft_p99_ms: 300, output_throughput: 50 },
      { rate: 1, achieved_rate: 1, success_rate: 100, ttft_p99_ms: 200, output_throughput: 25 },
      { note: 'no rate: ignored' },
    ],
    knee: { rate: 2, sentence: 'Knee at 2 req/s.' },
  });
  assert.deepEqual(
    flat.levels.map((l) => [l.offeredRate, l.achievedRate, l.successRate, l.ttftP99Ms]),
    [
      [1, 1, 1, 200],
      [2, 1.9, 1, 300],
    ],
  );
  assert.deepEqual(flat.knee, { offeredRate: 2, firstBadRate: null, sentence: 'Knee at 2 req/s.' });
  const fromResults = sweepFromSummary('s.json', { runs: [localRun().json], knee_rate: 4 });
  assert.equal(fromResults.levels[0]?.offeredRate, 4);
  assert.equal(fromResults.knee?.offeredRate, 4);
  assert.throws(
    () => sweepFromSummary('s.json', { levels: [] }),
    /'s.json' is a sweep summary without any level/,
  );
});
