// The primary's restart delays: a worker that had run a while is replaced at once-ish; one that keeps dying at
// start waits twice as long each time, up to the ceiling, so a crash loop never spins a core.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  FIRST_RESTART_DELAY_MS,
  MAX_RESTART_DELAY_MS,
  RestartBackoff,
  STABLE_AFTER_MS,
} from '../../src/gateway/cluster/primary.js';

test('a worker dying at start again and again waits twice as long each time, never past the ceiling', () => {
  const backoff = new RestartBackoff();
  const delays = Array.from({ length: 12 }, () => backoff.next(50));
  assert.equal(delays[0], FIRST_RESTART_DELAY_MS);
  assert.equal(delays[1], FIRST_RESTART_DELAY_MS * 2);
  assert.equal(delays[2], FIRST_RESTART_DELAY_MS * 4);
  assert.equal(delays.at(-1), MAX_RESTART_DELAY_MS);
  assert.ok(delays.every((d) => d <= MAX_RESTART_DELAY_MS));
  // Restarts per minute in a crash loop, once at the ceiling: two, not thousands.
  assert.equal(60_000 / MAX_RESTART_DELAY_MS, 2);
});

test('a worker that had run a while starts its slot over: the next replacement is quick again', () => {
  const backoff = new RestartBackoff();
  for (let i = 0; i < 5; i++) backoff.next(10);
  assert.equal(backoff.next(STABLE_AFTER_MS), FIRST_RESTART_DELAY_MS);
});
