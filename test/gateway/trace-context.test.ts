// W3C Trace Context end to end over real sockets: the load generator (both engines) starts a trace per request,
// the gateway continues it and sends its own span upstream as the parent, and an upstream that captures headers
// sees one trace shared by the client's record and the gateway's. A malformed traceparent starts a new trace
// (its tracestate dropped); a valid one carries its tracestate upstream unchanged.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { createClosedLoopEngine } from '../../loadgen/engine/closed-loop-engine.js';
import { createOpenLoopEngine } from '../../loadgen/engine/open-loop-engine.js';
import type { RequestRecord as GatewayRecord } from '../../src/gateway/records/record.js';
import { chatRequests, runEngineAgainst } from '../loadgen/helpers/bench-fixtures.js';
import { startGateway, type TestGateway } from './helpers/gateway.js';
import {
  type ReceivedRequest,
  sendShortChatStream,
  startUpstream,
  type TestUpstream,
} from './helpers/upstream.js';

/** version 00, lower-case hex trace id and span id, two flag digits (spec 3.2). */
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const CLIENT_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CLIENT_SPAN = '00f067aa0ba902b7';

let upstream: TestUpstream;
let gateway: TestGateway;

before(async () => {
  upstream = await startUpstream((_req, res) => sendShortChatStream(res));
  gateway = await startGateway({ upstreams: [{ name: 'u', baseUrl: `${upstream.url}/v1`, keyless: true }] });
});

after(async () => {
  await gateway.close();
  await upstream.close();
});

function upstreamSaw(requestId: string): ReceivedRequest {
  const seen = upstream.requests.find((r) => r.headers['x-request-id'] === requestId);
  assert.ok(seen, `the upstream received ${requestId}`);
  return seen;
}

function gatewayRecordOf(requestId: string): GatewayRecord {
  const record = gateway.records.find((r) => r.requestId === requestId);
  assert.ok(record, `the gateway recorded ${requestId}`);
  return record;
}

/** The upstream's traceparent, split: [trace id, parent id, flags]. */
function traceparentSeen(seen: ReceivedRequest): [string, string, string] {
  const header = seen.headers['traceparent'];
  assert.equal(typeof header, 'string');
  const match = TRACEPARENT.exec(header as string);
  assert.ok(match, `a version-00 traceparent upstream: ${String(header)}`);
  return [match[1] as string, match[2] as string, match[3] as string];
}

async function sendThroughGateway(
  requestId: string,
  headers: Record<string, string>,
): Promise<GatewayRecord> {
  const before = gateway.records.length;
  const response = await request(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-request-id': requestId, ...headers },
    body: JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
  });
  await response.body.text();
  await gateway.recordsAfter(before + 1);
  return gatewayRecordOf(requestId);
}

for (const [name, engine] of [
  ['open-loop', () => createOpenLoopEngine({ offsetsMs: [0, 0, 0], maxConcurrency: 2 })],
  ['closed-loop', () => createClosedLoopEngine(2)],
] as const) {
  test(`${name}: client, gateway and upstream share one trace with parent links`, async () => {
    const before = gateway.records.length;
    const run = await runEngineAgainst(engine(), gateway.url, chatRequests(3, 1, `${name}-`));
    await gateway.recordsAfter(before + 3);
    const traces = new Set<string>();
    for (const client of run.records) {
      assert.equal(client.outcome, 'ok', `#${client.index}: ${client.error}`);
      const requestId = `${name}-${client.index}`;
      const atGateway = gatewayRecordOf(requestId);
      const [traceId, parentId, flags] = traceparentSeen(upstreamSaw(requestId));
      assert.match(client.traceId ?? '', /^[0-9a-f]{32}$/);
      assert.match(client.spanId ?? '', /^[0-9a-f]{16}$/);
      assert.equal(atGateway.traceId, client.traceId, 'the gateway continued the client trace');
      assert.equal(atGateway.parentSpanId, client.spanId, "the gateway's parent is the client span");
      assert.notEqual(atGateway.spanId, client.spanId, 'the gateway has a span of its own');
      assert.equal(traceId, client.traceId, 'the upstream is in the same trace');
      assert.equal(parentId, atGateway.spanId, "the upstream's parent is the gateway span");
      assert.equal(flags, '03', 'a trace the load generator starts is sampled, its id random');
      traces.add(traceId);
    }
    assert.equal(traces.size, 3, 'each request starts its own trace');
  });
}

test('a valid traceparent is continued and its tracestate passes unchanged', async () => {
  const tracestate = 'congo=t61rcWkgMzE,rojo=00f067aa0ba902b7';
  const record = await sendThroughGateway('valid-1', {
    traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01`,
    tracestate,
  });
  const seen = upstreamSaw('valid-1');
  const [traceId, parentId, flags] = traceparentSeen(seen);
  assert.equal(record.traceId, CLIENT_TRACE);
  assert.equal(record.parentSpanId, CLIENT_SPAN);
  assert.equal(traceId, CLIENT_TRACE);
  assert.equal(parentId, record.spanId, 'the client traceparent is replaced by the gateway one');
  assert.notEqual(parentId, CLIENT_SPAN);
  assert.equal(flags, '01', 'the sampled decision is the caller');
  assert.equal(seen.headers['tracestate'], tracestate);
});

test('flags the spec does not define are cleared; a later version is read by its 00 prefix', async () => {
  const record = await sendThroughGateway('future-1', {
    traceparent: `cc-${CLIENT_TRACE}-${CLIENT_SPAN}-ff-what-the-future-adds`,
  });
  const [traceId, , flags] = traceparentSeen(upstreamSaw('future-1'));
  assert.equal(record.traceId, CLIENT_TRACE);
  assert.equal(traceId, CLIENT_TRACE);
  assert.equal(flags, '03', 'sampled and random-trace-id kept, the rest zeroed');
});

for (const [why, traceparent] of [
  ['upper-case hex', `00-${CLIENT_TRACE.toUpperCase()}-${CLIENT_SPAN}-01`],
  ['an all-zero trace id', `00-${'0'.repeat(32)}-${CLIENT_SPAN}-01`],
  ['an all-zero parent id', `00-${CLIENT_TRACE}-${'0'.repeat(16)}-01`],
  ['version ff', `ff-${CLIENT_TRACE}-${CLIENT_SPAN}-01`],
  ['version 00 with a trailing field', `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01-extra`],
  ['a short trace id', `00-${CLIENT_TRACE.slice(1)}-${CLIENT_SPAN}-01`],
  ['non-hex flags', `00-${CLIENT_TRACE}-${CLIENT_SPAN}-0x`],
  ['garbage', 'not a traceparent at all, but long enough to be measured'],
] as const) {
  test(`a traceparent with ${why} is ignored: a new trace starts, tracestate dropped`, async () => {
    const requestId = `bad-${why.replaceAll(' ', '-')}`;
    const record = await sendThroughGateway(requestId, { traceparent, tracestate: 'rojo=00f067aa0ba902b7' });
    const seen = upstreamSaw(requestId);
    const [traceId, parentId, flags] = traceparentSeen(seen);
    assert.notEqual(record.traceId.toLowerCase(), CLIENT_TRACE);
    assert.equal(record.parentSpanId, null, 'the gateway started the trace');
    assert.equal(traceId, record.traceId);
    assert.equal(parentId, record.spanId);
    assert.equal(flags, '03');
    assert.equal(seen.headers['tracestate'], undefined, 'a tracestate of no trace we continue is not sent');
  });
}

test('two traceparent headers are invalid together: a new trace starts', async () => {
  // undici sends an array value as repeated header lines; Node joins them, and the joined value is invalid.
  const before = gateway.records.length;
  const response = await request(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-request-id': 'twice-1',
      traceparent: [`00-${CLIENT_TRACE}-${CLIENT_SPAN}-01`, `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01`],
    },
    body: JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
  });
  await response.body.text();
  await gateway.recordsAfter(before + 1);
  const record = gatewayRecordOf('twice-1');
  assert.notEqual(record.traceId, CLIENT_TRACE);
  assert.equal(record.parentSpanId, null);
});

test('without a traceparent the gateway starts the trace', async () => {
  const record = await sendThroughGateway('none-1', {});
  const [traceId, parentId] = traceparentSeen(upstreamSaw('none-1'));
  assert.equal(record.parentSpanId, null);
  assert.equal(traceId, record.traceId);
  assert.equal(parentId, record.spanId);
});
