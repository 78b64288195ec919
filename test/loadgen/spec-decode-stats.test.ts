// vLLM's rules for its speculative-decoding figures between two readings of a server's page: none when either
// reading lacks every spec_decode counter or the run drafted nothing; a counter missing beside others reads 0; a
// draft position missing after the run has not moved; without drafts, no positions and an acceptance length of 0.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readServerPage, type ServerReading } from '../../loadgen/server-metrics/server-reading.js';
import { specDecodeBetween } from '../../loadgen/server-metrics/spec-decode.js';

const page = (...lines: string[]): ServerReading => {
  const reading = readServerPage(`${lines.join('\n')}\n`);
  assert.ok(reading !== null);
  return reading;
};
const RUNNING = 'vllm:num_requests_running 0';
const drafts = (n: number): string => `vllm:spec_decode_num_drafts_total ${n}`;
const draftTokens = (n: number): string => `vllm:spec_decode_num_draft_tokens_total ${n}`;
const accepted = (n: number): string => `vllm:spec_decode_num_accepted_tokens_total ${n}`;
const position = (p: number, n: number): string =>
  `vllm:spec_decode_num_accepted_tokens_per_pos_total{position="${p}"} ${n}`;

test('none when a reading has no spec_decode counter, or nothing was drafted', () => {
  const plain = page(RUNNING);
  const some = page(drafts(4), draftTokens(8), accepted(5));
  assert.equal(specDecodeBetween(plain, some), undefined);
  assert.equal(specDecodeBetween(some, plain), undefined);
  assert.equal(specDecodeBetween(some, some), undefined);
});

test('a missing counter reads 0; a position missing after the run has not moved', () => {
  const before = page(draftTokens(0), position(0, 3), position(1, 1));
  const after = page(drafts(10), draftTokens(20), accepted(12), position(0, 9));
  const stats = specDecodeBetween(before, after);
  assert.deepEqual(stats, {
    numDrafts: 10,
    draftTokens: 20,
    acceptedTokens: 12,
    acceptanceRate: 60,
    acceptanceLength: 2.2,
    perPositionAcceptanceRates: [0.6, 0],
  });
});

test('without drafts: acceptance length 0 and no positions', () => {
  const stats = specDecodeBetween(page(draftTokens(0), position(0, 0)), page(draftTokens(6), accepted(3)));
  assert.equal(stats?.acceptanceLength, 0);
  assert.deepEqual(stats?.perPositionAcceptanceRates, []);
  assert.equal(stats?.acceptanceRate, 50);
});
