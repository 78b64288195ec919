// The gateway's span receiver end to end: an upstream that traces like vLLM (continues the gateway's traceparent
// and exports an llm_request span with the official exporter to the gateway's metrics port) gets its segments
// into the request's record, whether the span comes before or after the request finished; a record whose span
// never comes is written without after the wait, and at shutdown; spans of other requests are dropped and counted.
// Every row: one record per request.
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { request } from 'undici';
import { validateConfig } from '../../src/gateway/config/config-validate.js';
import { newSpanId, newTraceId, parseTraceparent, type TraceParent } from '../../src/shared/trace-context.js';
import { TRACES_PATH } from '../../src/tracing/receiver/span-receiver.js';
import { startGateway, type TestGateway } from '../gateway/helpers/gateway.js';
import { sendShortChatStream, startUpstream, type TestUpstream } from '../gateway/helpers/upstream.js';
import { until } from '../helpers/deadline.js';
import { assertOneRecordPerRequest, closeAndAccount } from '../reliability/accounting.js';
import { exportWithSdk, llmRequestAttributes, sdkSpans } from './helpers/sdk-export.js';

const SECONDS = { queue: 0.012, prefill: 0.034, decode: 0.5, ttft: 0.046, e2e: 0.55 };
const EXPECTED_SERVER = {
  queueMs: 12,
  prefillMs: 34,
  decodeMs: 500,
  inferenceMs: 534,
  ttftMs: 46,
  e2eMs: 550,
};

let upstream: TestUpstream | undefined;
let gateway: TestGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  await upstream?.close();
  gateway = undefined;
  upstream = undefined;
});

function tracesUrl(g: TestGateway): string {
  const address = g.context.state.metricsAddress;
  assert.ok(address !== null);
  return `http://127.0.0.1:${address.port}${TRACES_PATH}`;
}

/** Exports vLLM's span for the request the upstream received with `traceparent`. */
async function exportServerSpan(url: string, parent: TraceParent, startTime = Date.now()): Promise<void> {
  const spans = sdkSpans([
    {
      traceId: parent.traceId,
      parentSpanId: parent.parentId,
      startTime,
      attributes: llmRequestAttributes(SECONDS),
    },
  ]);
  const result = await exportWithSdk(url, 'protobuf', spans);
  assert.equal(result.ok, true, String(result.error));
}

function parentOf(u: TestUpstream, index: number): TraceParent {
  const parent = parseTraceparent(u.requests[index]?.headers['traceparent']);
  assert.ok(parent !== undefined, 'the gateway sent a traceparent upstream');
  return parent;
}

async function chat(g: TestGateway, headers: Record<string, string> = {}): Promise<void> {
  const answer = await request(`${g.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: '{"model":"m","stream":true}',
  });
  assert.equal(answer.statusCode, 200);
  await answer.body.text();
}

async function gatewayWithReceiver(
  waitMs: number,
  more: { maxWaitingRecords?: number; tokenEnv?: string } = {},
  env: NodeJS.ProcessEnv = {},
): Promise<TestGateway> {
  upstream ??= await startUpstream((_req, res) => sendShortChatStream(res));
  return startGateway(
    {
      upstreams: [{ name: 'vllm', baseUrl: upstream.url, keyless: true }],
      metrics: { port: 0, ...(more.tokenEnv === undefined ? {} : { tokenEnv: more.tokenEnv }) },
      spanReceiver: {
        waitMs,
        ...(more.maxWaitingRecords === undefined ? {} : { maxWaitingRecords: more.maxWaitingRecords }),
      },
    },
    env,
  );
}

test('a span that comes after the request finished joins its waiting record', async () => {
  gateway = await gatewayWithReceiver(30_000);
  const join = gateway.context.spanReceiving?.join;
  assert.ok(join !== undefined);
  const client = { traceId: newTraceId(), spanId: newSpanId() };
  await chat(gateway, { traceparent: `00-${client.traceId}-${client.spanId}-01` });
  await until(
    () => join.waiting === 1,
    () => `1 record waiting for its span, ${join.waiting} waiting`,
  );
  assert.equal(gateway.records.length, 0, 'the record waits for its span');
  const parent = parentOf(upstream as TestUpstream, 0);
  assert.equal(parent.traceId, client.traceId);
  await exportServerSpan(tracesUrl(gateway), parent);
  const [record] = await gateway.recordsAfter(1);
  assert.ok(record !== undefined);
  const { startMs, ...segments } = record.server ?? {};
  assert.deepEqual(segments, EXPECTED_SERVER);
  // The test exports with the span starting now, after the request ended: by the one wall clock of this host.
  assert.ok(
    typeof startMs === 'number' && startMs >= record.e2eMs,
    `startMs ${startMs}, e2eMs ${record.e2eMs}`,
  );
  assert.equal(record.parentSpanId, client.spanId);
  assert.deepEqual(join.stats, {
    spansJoined: 1,
    spansUnmatched: 0,
    recordsJoined: 1,
    recordsTimedOut: 0,
    recordsEvicted: 0,
    recordsFlushed: 0,
  });
  await closeAndAccount(gateway, 1);
});

test('a span that comes while its request is in flight is written with the record at once', async () => {
  let url = '';
  upstream = await startUpstream((req, res) => {
    const parent = parseTraceparent(req.headers['traceparent']);
    assert.ok(parent !== undefined);
    // vLLM ends its span when the last token is out; exporting before the answer ends is the earliest case.
    exportServerSpan(url, parent).then(() => sendShortChatStream(res));
  });
  gateway = await gatewayWithReceiver(30_000);
  url = tracesUrl(gateway);
  await chat(gateway);
  await chat(gateway);
  const records = await gateway.recordsAfter(2);
  for (const record of records)
    assert.deepEqual({ ...record.server, startMs: 0 }, { ...EXPECTED_SERVER, startMs: 0 });
  assert.equal(gateway.context.spanReceiving?.join.waiting, 0);
  await closeAndAccount(gateway, 2);
});

test('spans of other requests are dropped and counted, and scraped', async () => {
  gateway = await gatewayWithReceiver(30_000);
  const join = gateway.context.spanReceiving?.join;
  assert.ok(join !== undefined);
  const client = { traceId: newTraceId(), spanId: newSpanId() };
  await chat(gateway, { traceparent: `00-${client.traceId}-${client.spanId}-01` });
  await until(
    () => join.waiting === 1,
    () => `1 record waiting for its span, ${join.waiting} waiting`,
  );
  const url = tracesUrl(gateway);
  // Another trace; and this request's trace but parented by the client's span, not the gateway's.
  await exportServerSpan(url, { traceId: newTraceId(), parentId: newSpanId(), flags: '01' });
  await exportServerSpan(url, { traceId: client.traceId, parentId: client.spanId, flags: '01' });
  assert.equal(join.stats.spansUnmatched, 2);
  assert.equal(join.waiting, 1);
  await exportServerSpan(url, parentOf(upstream as TestUpstream, 0));
  await gateway.recordsAfter(1);
  const page = await request(url.replace(TRACES_PATH, '/metrics'));
  const text = await page.body.text();
  assert.match(text, /tokenmeter_span_receiver_spans_total\{result="unmatched"\} 2/);
  assert.match(text, /tokenmeter_span_receiver_spans_total\{result="joined"\} 1/);
  assert.match(text, /tokenmeter_span_join_records_total\{result="joined"\} 1/);
  assert.match(text, /tokenmeter_span_receiver_exports_total\{result="accepted"\} 3/);
  await closeAndAccount(gateway, 1);
});

test('a record whose span never comes is written without it after the wait', async () => {
  const waitMs = 150;
  gateway = await gatewayWithReceiver(waitMs);
  await chat(gateway);
  await chat(gateway);
  const records = await gateway.recordsAfter(2);
  for (const record of records) assert.equal(record.server, undefined);
  assert.equal(gateway.context.spanReceiving?.join.stats.recordsTimedOut, 2);
  await closeAndAccount(gateway, 2);
});

test('closing the gateway writes every waiting record at once', async () => {
  gateway = await gatewayWithReceiver(600_000);
  const join = gateway.context.spanReceiving?.join;
  assert.ok(join !== undefined);
  for (let i = 0; i < 3; i++) await chat(gateway);
  await until(
    () => join.waiting === 3,
    () => `3 records waiting for their spans, ${join.waiting} waiting`,
  );
  const records = await closeAndAccount(gateway, 3);
  assertOneRecordPerRequest(records, 3);
  assert.equal(join.stats.recordsFlushed, 3);
  gateway = undefined;
});

test('past maxWaitingRecords the oldest waiting record is written at once, without its span', async () => {
  gateway = await gatewayWithReceiver(600_000, { maxWaitingRecords: 1 });
  await chat(gateway);
  await chat(gateway);
  const [first] = await gateway.recordsAfter(1);
  assert.equal(first?.server, undefined);
  assert.equal(gateway.context.spanReceiving?.join.stats.recordsEvicted, 1);
  assert.equal(gateway.context.spanReceiving?.join.waiting, 1);
  await closeAndAccount(gateway, 2);
});

test('with a metrics token, an export without it is refused 401 and one with it joins', async () => {
  gateway = await gatewayWithReceiver(
    30_000,
    { tokenEnv: 'TEST_METRICS_TOKEN' },
    { TEST_METRICS_TOKEN: 'scrape-me' },
  );
  await chat(gateway);
  const url = tracesUrl(gateway);
  const parent = parentOf(upstream as TestUpstream, 0);
  const spans = sdkSpans([
    { traceId: parent.traceId, parentSpanId: parent.parentId, attributes: llmRequestAttributes(SECONDS) },
  ]);
  assert.equal((await exportWithSdk(url, 'json', spans)).ok, false);
  assert.equal(gateway.context.spanReceiving?.receiver.stats.exports.unauthorized, 1);
  assert.equal(gateway.records.length, 0);
  assert.equal(
    (await exportWithSdk(url, 'json', spans, false, { authorization: 'Bearer scrape-me' })).ok,
    true,
  );
  const [record] = await gateway.recordsAfter(1);
  assert.equal(record?.server?.queueMs, EXPECTED_SERVER.queueMs);
  await closeAndAccount(gateway, 1);
});

test('the receiver needs a metrics port of its own', () => {
  assert.throws(
    () => validateConfig({ upstreams: [{ name: 'u', baseUrl: 'http://127.0.0.1:1/v1' }], spanReceiver: {} }),
    /spanReceiver needs metrics.port/,
  );
});
