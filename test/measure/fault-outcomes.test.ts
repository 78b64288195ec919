// One table of upstream faults, each served by a real upstream, run through the four places that measure a stream:
// the gateway (its record), the open-loop engine and the closed-loop engine (their records) and the doctor's
// stream check (the outcome it derives). All four must name the same outcome, because all four decide it by one
// rule (src/measure/stream-outcome.ts) and one network-error classifier (src/measure/network-failure.ts).
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { createClosedLoopEngine } from '../../loadgen/engine/closed-loop-engine.js';
import { createOpenLoopEngine } from '../../loadgen/engine/open-loop-engine.js';
import { checkStream } from '../../src/doctor/stream-check.js';
import { normalizeUpstreamBase } from '../../src/gateway/config/upstream-url.js';
import type { Outcome } from '../../src/measure/outcome.js';
import { BEARER_AUTH } from '../../src/protocols/index.js';
import { DEFAULT_MAX_EVENT_BYTES } from '../../src/sse/sse-parser.js';
import { startGateway, type TestGateway } from '../gateway/helpers/gateway.js';
import { chatChunk, startUpstream, type TestUpstream } from '../gateway/helpers/upstream.js';
import { chatRequests, runEngineAgainst } from '../loadgen/helpers/bench-fixtures.js';

/** The idle timeout of the stall row (undici fires its body timeout up to about a second late). */
const IDLE_MS = 250;
/**
 * The idle timeout of every other row: none of them waits for it, and a short one would turn a busy box's pause
 * (the 10 MB rows' garbage collection, another test's burst) into a timeout that is not the fault under test.
 */
const PATIENT_IDLE_MS = 10_000;

interface Fault {
  readonly name: string;
  readonly expected: Outcome;
  /** Idle timeout of the gateway, the engines and the doctor for this row; PATIENT_IDLE_MS when absent. */
  readonly idleMs?: number;
  serve(res: ServerResponse): void;
}

// The unterminated events over the parser bound, built once: four consumers each receive one per row, and building
// the text per request would add tens of megabytes of garbage, whose collection stalls the event loop past the
// idle timeout these rows run with.
const OVER_THE_BOUND = Buffer.from(
  `data: {"choices":[{"delta":{"content":"${'x'.repeat(DEFAULT_MAX_EVENT_BYTES + 1024)}`,
);
const TEN_MB_EVENT = Buffer.from(`data: {"choices":[{"delta":{"content":"${'x'.repeat(10 * 1024 * 1024)}`);

function startStream(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
}

const FAULTS: readonly Fault[] = [
  {
    name: 'cut mid-stream (socket destroyed after two chunks)',
    expected: 'truncated',
    serve(res) {
      startStream(res);
      res.write(chatChunk({ content: 'one' }));
      res.write(chatChunk({ content: ' two' }));
      setTimeout(() => res.socket?.destroy(), 20);
    },
  },
  {
    name: '200 with an error event inside the stream',
    expected: 'upstream_error_body',
    serve(res) {
      startStream(res);
      res.end('data: {"error":{"message":"upstream overloaded","type":"server_error"}}\n\ndata: [DONE]\n\n');
    },
  },
  {
    name: 'an event over the parser bound, unterminated, then a clean close',
    expected: 'truncated',
    serve(res) {
      startStream(res);
      res.write(chatChunk({ content: 'one' }));
      res.end(OVER_THE_BOUND);
    },
  },
  {
    // Issue 23, item 14: nothing but a role-only delta was read, so no chunk carried text; the stream was cut
    // inside an event too big to read, which is what a truncation looks like, not an upstream's error.
    name: 'a role-only delta, then an unterminated 10 MB event over the parser bound, then a clean close',
    expected: 'truncated',
    serve(res) {
      startStream(res);
      res.write(chatChunk({ role: 'assistant', content: '' }));
      res.end(TEN_MB_EVENT);
    },
  },
  {
    name: 'no [DONE] and no finish reason, clean close',
    expected: 'truncated',
    serve(res) {
      startStream(res);
      res.end(`${chatChunk({ content: 'one' })}${chatChunk({ content: ' two' })}`);
    },
  },
  {
    name: 'empty stream (200, zero events)',
    expected: 'upstream_error_body',
    serve(res) {
      startStream(res);
      res.end();
    },
  },
  {
    name: 'idle stall (headers and a chunk, then silence beyond the idle timeout)',
    expected: 'upstream_timeout',
    idleMs: IDLE_MS,
    serve(res) {
      startStream(res);
      res.write(chatChunk({ content: 'one' }));
      const end = setTimeout(() => res.end('data: [DONE]\n\n'), IDLE_MS * 8);
      res.once('close', () => clearTimeout(end));
    },
  },
];

let fault: Fault = FAULTS[0] as Fault;
let upstream: TestUpstream;
/** One gateway per idle timeout the rows use. */
const gateways = new Map<number, TestGateway>();

before(async () => {
  upstream = await startUpstream((_req, res) => fault.serve(res));
  for (const idleMs of [IDLE_MS, PATIENT_IDLE_MS]) {
    gateways.set(
      idleMs,
      await startGateway({
        upstreams: [{ name: 'u', baseUrl: upstream.url, keyless: true, timeouts: { idleMs } }],
      }),
    );
  }
});
after(async () => {
  for (const gateway of gateways.values()) await gateway.close();
  await upstream.close();
});

async function throughGateway(idleMs: number): Promise<Outcome> {
  const gateway = gateways.get(idleMs) as TestGateway;
  const count = gateway.records.length;
  try {
    const res = await request(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}',
    });
    // Read and dropped as it comes: a 10 MB answer kept whole is garbage the event loop then stalls collecting.
    for await (const _chunk of res.body) {
      // nothing to keep
    }
  } catch {
    // The gateway cuts the client's stream when the upstream's was cut.
  }
  const records = await gateway.recordsAfter(count + 1);
  return (records[count] as { outcome: Outcome }).outcome;
}

async function throughEngine(closedLoop: boolean, idleMs: number): Promise<Outcome> {
  const engine = closedLoop
    ? createClosedLoopEngine(1)
    : createOpenLoopEngine({ offsetsMs: [0], maxConcurrency: 1 });
  const run = await runEngineAgainst(engine, upstream.url, chatRequests(1, 4, 'fault-'), idleMs);
  assert.equal(run.records.length, 1);
  return (run.records[0] as { outcome: Outcome }).outcome;
}

async function throughDoctor(idleMs: number): Promise<Outcome | undefined> {
  const ctx = {
    base: normalizeUpstreamBase(upstream.url, 'test'),
    headers: {},
    auth: BEARER_AUTH,
    timeoutMs: idleMs,
    keySource: undefined,
  };
  const [stream] = await checkStream(ctx, 'm', 'openai-chat');
  return stream?.outcome;
}

for (const row of FAULTS) {
  test(`${row.name}: ${row.expected} from the gateway, both engines and the doctor`, async () => {
    fault = row;
    const idleMs = row.idleMs ?? PATIENT_IDLE_MS;
    // The four run at once (each on its own connection), so the stall row waits out its idle timeouts together.
    const [gatewaySeen, openLoop, closedLoop, doctor] = await Promise.all([
      throughGateway(idleMs),
      throughEngine(false, idleMs),
      throughEngine(true, idleMs),
      throughDoctor(idleMs),
    ]);
    const seen = { gateway: gatewaySeen, openLoop, closedLoop, doctor };
    assert.deepEqual(seen, {
      gateway: row.expected,
      openLoop: row.expected,
      closedLoop: row.expected,
      doctor: row.expected,
    });
  });
}
