// autocannon's timeout is re-armed only when a request is written, so a long stream would be killed as a timeout.
// Ours is an idle timeout: a 600 ms stream with a byte every 10 ms passes a 150 ms limit, while a 400 ms silence
// in the middle of a stream fails it as `timeout` and the connection carries on with the next request. After a
// connection is replaced mid-answer (our timeout, or the server cutting it), the next answer still parses cleanly:
// autocannon alone would read it as the rest of the cut one.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createClosedLoopEngine } from '../../loadgen/engine/closed-loop-engine.js';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { chatRequests, exactTiming, runEngineAgainst } from './helpers/bench-fixtures.js';

let steady: RunningSimulator;
let stalling: RunningSimulator;
let cutting: RunningSimulator;

before(async () => {
  steady = await startSimulator({ seed: 6, timing: exactTiming(10, 10) });
  stalling = await startSimulator({
    seed: 6,
    timing: exactTiming(10, 10),
    faults: { stallAfterTokens: 3, stallMs: 400 },
  });
  cutting = await startSimulator({ seed: 6, timing: exactTiming(10, 10), faults: { cutAfterTokens: 3 } });
});
after(async () => {
  await steady.close();
  await stalling.close();
  await cutting.close();
});

test('a stream longer than the idle timeout succeeds while bytes keep coming', async () => {
  const run = await runEngineAgainst(
    createClosedLoopEngine(1),
    steady.url,
    chatRequests(1, 60, 'long-'),
    150,
  );
  assert.equal(run.records[0]?.outcome, 'ok', run.records[0]?.error ?? '');
  assert.ok((run.records[0]?.lastTokenMs ?? 0) > 500);
});

test('a silence longer than the idle timeout is a timeout, and the run goes on', async () => {
  const run = await runEngineAgainst(
    createClosedLoopEngine(1),
    stalling.url,
    chatRequests(2, 10, 'stall-'),
    150,
  );
  assert.equal(run.records.length, 2);
  for (const record of run.records) {
    assert.equal(record.outcome, 'upstream_timeout');
    assert.match(record.error ?? '', /idle timeout/);
    assert.equal(record.contentChunks, 3, 'the tokens before the stall were measured');
  }
});

test('an answer cut by the server is truncated, and the next one on a new connection parses cleanly', async () => {
  const run = await runEngineAgainst(createClosedLoopEngine(1), cutting.url, chatRequests(3, 10, 'cut-'));
  assert.equal(run.records.length, 3);
  for (const record of run.records) {
    assert.equal(record.outcome, 'truncated', record.error ?? '');
    assert.equal(record.status, 200);
    assert.equal(record.contentChunks, 3);
  }
});
