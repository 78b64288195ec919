// The agent replay engine against the real simulator: a written trace of 21 sessions (the three protocols, 4 turns
// each, every turn but the last calling a tool) replayed with the model's actual answers carried into the history.
// What came back must be the trace again: the same sessions and turns, prompts within 1% of the recorded lengths,
// outputs as recorded, waits within 5 ms of the scaled ones plus what the machine's stalls explain
// (waitLatenessBound), and the simulator's cached tokens as the block ids predict (a floor: see below).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { measureStalls, waitLatenessBound } from '../helpers/loop-stall.js';
import { exactTiming } from '../loadgen/helpers/bench-fixtures.js';
import { replay, writeTrace } from './helpers/agent-fixtures.js';

let sim: RunningSimulator;

before(async () => {
  sim = await startSimulator({
    seed: 3,
    timing: { ...exactTiming(5, 1), eosMedianTokens: 100_000 },
    tools: { callRate: 0.5, maxToolTurns: 100 },
    kv: { enablePrefixCaching: true },
  });
});
after(() => sim.close());

const SHAPE = {
  sessions: 21,
  turns: 4,
  blockSize: 16,
  sharedBlocks: 6,
  growth: 300,
  waitMs: 40,
  finalOutput: 30,
  gapMs: 20,
};

test('a written trace replays as itself against the simulator', async () => {
  const text = writeTrace(SHAPE);
  const stalls = measureStalls();
  const run = await replay(sim.url, text, { timeScale: 0.5 });
  const stallMs = stalls.stop();
  const lines = text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  assert.equal(run.records.length, lines.length, 'every turn sent once');
  assert.deepEqual(run.counts, { notSentAfterFailure: 0, notSentAfterCancel: 0, notSentStopped: 0 });
  const fixedPrefix = new Map<string, number>();
  for (const [i, r] of run.records.entries()) {
    const line = lines[i];
    const where = `${r.sessionId} turn ${r.turn}`;
    assert.equal(r.outcome, 'ok', `${where}: ${r.error} ${r.errorBodyExcerpt}`);
    assert.equal(r.sessionId, line.session_id);
    assert.equal(r.turn, line.turn + 1);
    const prompt = r.usagePromptTokens as number;
    assert.ok(
      Math.abs(prompt - line.input_length) <= 0.01 * line.input_length,
      `${where}: prompt ${prompt} of ${line.input_length}`,
    );
    assert.equal(r.outputTokens, line.output_length, `${where}: output`);
    const agent = r.agent;
    assert.ok(agent !== undefined);
    assert.equal(
      agent.toolCalls,
      line.tool_calls,
      `${where}: the simulator called the tool as the capture did`,
    );
    if (line.turn > 0) {
      assert.equal(agent.plannedWaitMs, line.wait_ms * 0.5);
      const late = (agent.waitedMs as number) - agent.plannedWaitMs;
      assert.ok(
        late >= 0 && late <= waitLatenessBound(stallMs),
        `${where}: waited ${agent.waitedMs} ms for ${agent.plannedWaitMs} (worst stall ${stallMs} ms)`,
      );
    }
    // What the ids predict is a floor: the server also holds the replay's own tool list (shared by every session
    // of a protocol), the previous turn's partial block and its answer. All of that is under one block, one KV
    // block and the previous answer past the prediction; the tool list's share is learnt from the first session.
    const cached = r.cachedPromptTokens as number;
    const extra = cached - agent.expectedCachedTokens;
    const previousOutput = line.turn === 0 ? 0 : lines[i - 1].output_length;
    assert.ok(extra >= 0, `${where}: ${cached} cached, ${agent.expectedCachedTokens} expected`);
    if (line.turn === 0 && agent.expectedCachedTokens > 0) {
      const first = fixedPrefix.get(line.api) ?? extra;
      fixedPrefix.set(line.api, first);
      assert.ok(
        Math.abs(extra - first) <= 16,
        `${where}: ${extra} more cached than the ids predict, first of ${line.api} ${first}`,
      );
    } else if (line.turn > 0) {
      assert.ok(
        extra <= SHAPE.blockSize + 16 + previousOutput,
        `${where}: ${cached} cached, ${agent.expectedCachedTokens} expected`,
      );
    }
  }
});

test('two replays of one trace get identical token totals, sessions at once or two at a time', async () => {
  const text = writeTrace({ ...SHAPE, sessions: 9, turns: 3 });
  const sum = (run: Awaited<ReturnType<typeof replay>>) => ({
    input: run.records.reduce((n, r) => n + (r.usagePromptTokens ?? 0), 0),
    output: run.records.reduce((n, r) => n + r.outputTokens, 0),
    cached: run.records.reduce((n, r) => n + (r.cachedPromptTokens ?? 0), 0),
  });
  const open = await replay(sim.url, text, { timeScale: 0.1 });
  const closed = await replay(sim.url, text, { timeScale: 0.1, concurrentSessions: 2 });
  assert.equal(closed.records.length, 27);
  const a = sum(open);
  const b = sum(closed);
  assert.equal(a.input, b.input);
  assert.equal(a.output, b.output);
});
