// The load generator keeps every gap of a stream for vLLM's ITL percentiles and --save-detailed, up to the
// meter's bound: a stream with more gaps than MAX_KEPT_GAPS gives, in both engines, a record with the first
// MAX_KEPT_GAPS gaps and itlMsCut, and still counts every chunk; a shorter one keeps them all and says nothing.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createClosedLoopEngine } from '../../loadgen/engine/closed-loop-engine.js';
import { createOpenLoopEngine } from '../../loadgen/engine/open-loop-engine.js';
import { MAX_KEPT_GAPS } from '../../src/measure/stream-meter.js';
import { chatChunk, startUpstream, type TestUpstream } from '../gateway/helpers/upstream.js';
import { chatRequests, runEngineAgainst } from './helpers/bench-fixtures.js';

const LONG = MAX_KEPT_GAPS + 11;
const SHORT = 5;

let upstream: TestUpstream;
before(async () => {
  const event = chatChunk({ content: 'a' });
  upstream = await startUpstream((req, res) => {
    // The request's x-request-id says which stream it gets (chatRequests numbers them).
    const chunks = String(req.headers['x-request-id']).startsWith('long') ? LONG : SHORT;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(event.repeat(chunks));
    res.end(`${chatChunk({}, 'stop')}data: [DONE]\n\n`);
  });
});
after(() => upstream.close());

for (const closedLoop of [false, true]) {
  test(`${closedLoop ? 'closed' : 'open'} loop: gaps kept up to MAX_KEPT_GAPS, itlMsCut past it`, async () => {
    for (const [prefix, chunks] of [
      ['long-', LONG],
      ['short-', SHORT],
    ] as const) {
      const engine = closedLoop
        ? createClosedLoopEngine(1)
        : createOpenLoopEngine({ offsetsMs: [0], maxConcurrency: 1 });
      const { records } = await runEngineAgainst(engine, upstream.url, chatRequests(1, 4, prefix));
      const record = records[0];
      assert.ok(record !== undefined);
      assert.equal(record.outcome, 'ok', String(record.error));
      assert.equal(record.contentChunks, chunks);
      assert.equal(record.itlMs.length, Math.min(chunks - 1, MAX_KEPT_GAPS));
      assert.equal(record.itlMsCut, chunks - 1 > MAX_KEPT_GAPS ? true : undefined);
    }
  });
}
