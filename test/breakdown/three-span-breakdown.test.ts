// A bench run through the gateway to the simulator with tracing on, over real sockets: the simulator exports its
// llm_request spans to the gateway's built-in span receiver (which joins them into the gateway's records and
// forwards them to a test collector); bench and the gateway export their own spans to that collector. Every
// request is one trace of three spans with correct parent links, and its breakdown adds up to the client's
// queue + E2E and carries the simulator's ground truth.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { BenchRunResult } from '../../loadgen/bench/aggregate.js';
import {
  breakdownFeature,
  breakdownFromResult,
  breakdownKeys,
  formatBreakdownSection,
  runBreakdown,
} from '../../loadgen/breakdown/breakdown-feature.js';
import type { RunBreakdown } from '../../loadgen/breakdown/request-breakdown.js';
import {
  ROUNDING_TOLERANCE_MS,
  SEGMENT_NAMES,
  segmentLabel,
} from '../../loadgen/breakdown/request-breakdown.js';
import { partOf } from '../../loadgen/feature.js';
import { renderHtmlReport } from '../../loadgen/report/html/write-html-report.js';
import { buildResultJson, type RunDescription } from '../../loadgen/report/result-json.js';
import type { JsonValueObject } from '../../src/shared/json-object.js';
import { DEFAULT_MODEL_NAME } from '../../src/sim/config.js';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { TRACES_PATH } from '../../src/tracing/receiver/span-receiver.js';
import { startGateway, type TestGateway } from '../gateway/helpers/gateway.js';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { benchInProcess, EXPORT_ENV, freePort } from './helpers.js';

const REQUESTS = 8;
const PREFIX = 'breakdown-';
/**
 * With every segment known, the split's residual is the simulator's TTFT less its queue and prefill, which its
 * scheduler makes equal, plus the rounding of each figure to the microsecond: measured -0.001 to 0.001 ms.
 */
const RESIDUAL_TOLERANCE_MS = ROUNDING_TOLERANCE_MS;
/** The simulator's span gives seconds of its own ground truth; the record keeps them to the microsecond. */
const TRUTH_TOLERANCE_MS = 0.001;

let collector: OtlpReceiver;
let sim: RunningSimulator;
let gateway: TestGateway;
let result: BenchRunResult;
let breakdown: RunBreakdown;

before(async () => {
  collector = await startOtlpReceiver();
  const metricsPort = await freePort();
  sim = await startSimulator(
    {
      otlpTracesEndpoint: `http://127.0.0.1:${metricsPort}${TRACES_PATH}`,
      // Two seats for eight requests sent at once: some wait in the simulator's queue.
      timing: { ttftMs: 20, prefillMsPerToken: 0.1, itlMs: 2, jitter: 0, maxNumSeqs: 2 },
    },
    EXPORT_ENV,
  );
  gateway = await startGateway(
    {
      upstreams: [{ name: 'sim', baseUrl: `${sim.url}/v1`, keyless: true }],
      metrics: { port: metricsPort },
      spanReceiver: { forwardUrl: `${collector.url}${TRACES_PATH}`, waitMs: 5000 },
      otlpEndpoint: collector.url,
    },
    EXPORT_ENV,
  );
  result = await benchInProcess({
    'base-url': `${gateway.url}/v1`,
    'dataset-name': 'random',
    'random-input-len': 16,
    'random-output-len': 8,
    'num-prompts': REQUESTS,
    'request-id-prefix': PREFIX,
    'otlp-endpoint': collector.url,
  });
  // The gateway's records wait for the simulator's span; the spans reach the collector on their timers.
  await gateway.recordsAfter(REQUESTS);
  await collector.spansAfter(3 * REQUESTS);
  breakdown = runBreakdown(result.records, gateway.records, PREFIX);
});

after(async () => {
  await gateway.close();
  await sim.close();
  await collector.close();
});

function only(spans: readonly ReceivedSpan[], service: string): ReceivedSpan {
  const found = spans.filter((s) => s.serviceName === service);
  assert.equal(found.length, 1, `one ${service} span`);
  return found[0] as ReceivedSpan;
}

test('every request is one trace of three spans: client, its child the gateway, its child the simulator', () => {
  assert.equal(result.records.length, REQUESTS);
  for (const record of result.records) {
    assert.equal(record.outcome, 'ok');
    const trace = collector.spans.filter((s) => s.traceId === record.traceId);
    assert.equal(trace.length, 3, `three spans in trace ${record.traceId}`);
    const client = only(trace, 'tokenmeter-bench');
    const server = only(trace, 'tokenmeter-gateway');
    const llm = only(trace, 'tokenmeter-sim');
    assert.equal(client.spanId, record.spanId);
    assert.equal(client.parentSpanId, '');
    assert.equal(server.parentSpanId, client.spanId);
    assert.equal(llm.parentSpanId, server.spanId);
    assert.equal(llm.name, 'llm_request');
  }
});

test('every split is complete and adds up to the client queue + E2E within the stated tolerance', () => {
  assert.equal(breakdown.requests.length, REQUESTS);
  for (const split of breakdown.requests) {
    assert.ok(split.complete, `request ${split.index}: ${JSON.stringify(split.segments)}`);
    const sum = SEGMENT_NAMES.reduce((total, name) => total + (split.segments[name] as number), 0);
    const record = result.records.find((r) => r.index === split.index);
    assert.ok(record?.lastTokenMs != null);
    const clientTotal = record.clientQueueMs + record.lastTokenMs;
    assert.ok(
      Math.abs(clientTotal - sum) <= RESIDUAL_TOLERANCE_MS,
      `request ${split.index}: segments ${sum} ms against ${clientTotal} ms`,
    );
    // Each side's TTFT spans the next one's (the spans nest), so the network segments are never negative; the
    // network and the gateway are not free on loopback.
    for (const name of ['clientGateway', 'gateway', 'gatewayServer'] as const)
      assert.ok(
        (split.segments[name] as number) > 0,
        `request ${split.index}: ${name} ${split.segments[name]}`,
      );
  }
  assert.equal(breakdown.summary.complete, REQUESTS);
  // Delivery goes negative when the first token reached the client later than the last one trailed the server's
  // decode (seen here on a loaded host): flagged as measured, never clamped.
  for (const split of breakdown.requests) {
    assert.deepEqual(
      split.negative,
      SEGMENT_NAMES.filter((name) => (split.segments[name] as number) < 0),
    );
  }
  assert.equal(breakdown.summary.negative, breakdown.requests.filter((s) => s.negative.length > 0).length);
});

test("the server's segments are the simulator's ground truth", () => {
  const near = (actual: number | null, expected: number, what: string): void =>
    assert.ok(
      actual !== null && Math.abs(actual - expected) <= TRUTH_TOLERANCE_MS,
      `${what}: ${actual} vs ${expected}`,
    );
  let queued = 0;
  for (const split of breakdown.requests) {
    const truth = sim.truth(`${PREFIX}${split.index}`);
    assert.ok(truth?.startedAtMs !== undefined);
    const first = truth.contentChunkEmittedAtMs[0] as number;
    const last = truth.contentChunkEmittedAtMs.at(-1) as number;
    near(split.segments.serverQueue, truth.startedAtMs - truth.receivedAtMs, 'queue');
    near(split.segments.prefill, first - truth.startedAtMs, 'prefill');
    near(split.segments.decode, last - first, 'decode');
    if ((split.segments.serverQueue as number) > 10) queued += 1;
  }
  assert.ok(queued > 0, 'two seats, eight requests at once: some waited at the simulator');
  assert.equal(
    partOf(result.parts, breakdownFeature)?.summary.requests,
    REQUESTS,
    "bench's own breakdown splits every request",
  );
});

test('the result JSON carries the splits, the report page draws them, the text report tabulates them', () => {
  const run: RunDescription = {
    date: new Date(0),
    backend: 'openai-chat',
    modelId: DEFAULT_MODEL_NAME,
    tokenizerId: 'builtin',
    numPrompts: REQUESTS,
    requestRate: Number.POSITIVE_INFINITY,
    burstiness: 1,
    percentileMetrics: ['ttft'],
  };
  // Round-trip through JSON, as the saved file is read back by `tokenmeter report`.
  const json = JSON.parse(
    JSON.stringify(
      buildResultJson(
        run,
        result.metrics,
        result.extra,
        result.records,
        true,
        [],
        breakdownKeys(breakdown, true),
      ),
    ),
  ) as JsonValueObject;
  assert.deepEqual(breakdownFromResult(json), breakdown.requests);
  assert.equal(json['breakdown'], undefined, 'under "tokenmeter", beside vLLM\'s keys, not among them');
  const html = renderHtmlReport('run', { result: json });
  for (const chart of ['breakdown-waterfall', 'breakdown-over-time'])
    assert.ok(html.includes(`data-chart="${chart}"`), chart);
  for (const name of ['clientGateway', 'gateway', 'serverQueue', 'prefill'])
    assert.ok(html.includes(`data-segment="${name}"`), `${name} drawn`);
  const section = formatBreakdownSection(breakdown.summary).join('\n');
  assert.match(section, /Where TTFT goes/);
  for (const name of SEGMENT_NAMES) {
    const stats = breakdown.summary.segments[name];
    assert.ok(stats !== null);
    assert.ok(
      section.includes(`${segmentLabel(name).padEnd(30)} ${stats.p50Ms.toFixed(2).padStart(9)}`),
      name,
    );
  }
});
