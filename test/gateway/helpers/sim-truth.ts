// Compares a gateway record with the simulator's ground truth for the same request. Gateway and simulator run in
// the test's process, so the truth's write times (performance.now()) are on the gateway's clock.
//
// Tolerance: a chunk the simulator writes crosses loopback and waits for the gateway's event loop, so the gateway
// sees it a little later, never earlier. Measured on the 2-core development box: 0.2-2 ms typical, ~6 ms when
// other work shares the cores. 25 ms (as in timing-fidelity.test.ts) still fails loudly for the bug that matters
// here: stamping the first token on a lifecycle event (message_start, response.created), which the simulator
// writes a whole ttftMs (150 ms in these tests) before the first text.
import assert from 'node:assert/strict';
import type { RequestRecord } from '../../../src/gateway/records/record.js';
import type { RequestTruth } from '../../../src/sim/index.js';

export const TOLERANCE_MS = 25;

/** What each protocol calls the simulator's `stop` and `length` endings. */
export const FINISH_NAMES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'openai-chat': { stop: 'stop', length: 'length' },
  'anthropic-messages': { stop: 'end_turn', length: 'max_tokens' },
  'openai-responses': { stop: 'completed', length: 'max_output_tokens' },
};

export interface TimingError {
  /** Gateway's first-token time minus the simulator's first content write, ms. */
  readonly ttftLagMs: number;
  /** Largest |measured gap - written gap|, ms (NaN without gaps in the record). */
  readonly worstGapErrorMs: number;
}

/** Asserts the record's TTFT, gaps and token counts match the truth; returns the errors for diagnostics. */
export function assertStreamMatchesTruth(record: RequestRecord, truth: RequestTruth): TimingError {
  const writes = truth.contentChunkEmittedAtMs;
  const firstWrite = writes[0];
  assert.ok(firstWrite !== undefined, 'the simulator wrote content');
  assert.ok(record.ttftMs !== null, 'the record has a TTFT');
  const ttftLagMs = record.receivedAtMonotonicMs + record.ttftMs - firstWrite;
  assert.ok(
    ttftLagMs >= -0.01 && ttftLagMs < TOLERANCE_MS,
    `first token seen ${ttftLagMs.toFixed(3)} ms after the simulator wrote it (lifecycle events came ${(
      firstWrite - (truth.headersAtMs ?? firstWrite)
    ).toFixed(1)} ms earlier)`,
  );
  assert.equal(record.contentChunks, writes.length);
  assert.equal(record.outputTokens, truth.completionTokens);
  assert.equal(record.promptTokens, truth.promptTokens);
  let worstGapErrorMs = Number.NaN;
  if (record.itlMs !== undefined) {
    assert.equal(record.itlMs.length, writes.length - 1);
    worstGapErrorMs = 0;
    for (const [i, gap] of record.itlMs.entries()) {
      const written = (writes[i + 1] ?? 0) - (writes[i] ?? 0);
      const error = Math.abs(gap - written);
      assert.ok(error < TOLERANCE_MS, `gap ${i}: measured ${gap} ms, written ${written.toFixed(3)} ms`);
      worstGapErrorMs = Math.max(worstGapErrorMs, error);
    }
  }
  return { ttftLagMs, worstGapErrorMs };
}
