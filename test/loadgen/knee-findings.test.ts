// The knee's findings from judged levels: bracketed, not enough data when unclear levels sit where it would be,
// and none when every level kept up. Levels are built by hand so each rule is shown on the numbers it reads.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findKnee } from '../../loadgen/sweep/knee.js';
import type { LevelStatus, SweepLevel } from '../../loadgen/sweep/sweep-level.js';

function level(offeredRps: number, status: LevelStatus, reason = ''): SweepLevel {
  const spread = { rps: offeredRps, minRps: offeredRps * 0.9, maxRps: offeredRps * 1.1 };
  return {
    offeredRps,
    requests: 100,
    steadyRequests: 80,
    steadyCancelled: 0,
    warmupRequests: 20,
    drainS: 0.1,
    drainCompletions: 3,
    successRate: 1,
    offered: spread,
    sent: spread,
    achieved: spread,
    followRatio: 1,
    followSpread: 0.05,
    achievedRps: offeredRps,
    ttftP50Ms: 20,
    ttftP99Ms: 30,
    tpotMeanMs: 4,
    itlP99Ms: 5,
    outputTokPerS: offeredRps * 20,
    sloAttainment: null,
    worstSlo: null,
    status,
    reason,
    resultFile: `${offeredRps}.json`,
  };
}

test('a knee between the last level that kept up and the first that fell behind, with both sets of numbers', () => {
  const knee = findKnee([level(10, 'kept-up'), level(30, 'fell-behind', 'only 50% of requests succeeded')]);
  assert.equal(knee.finding, 'knee');
  assert.equal(
    knee.sentence,
    'The knee lies between 10.00 req/s and 30.00 req/s: at 10.00 req/s it kept up, achieved 10.00 req/s ' +
      '(bins 9.00-11.00) of 10.00 req/s (bins 9.00-11.00) offered: 100% ± 5%; at 30.00 req/s only 50% of ' +
      'requests succeeded. Plan for at most about 10.00 req/s.',
  );
});

test('unclear levels where the knee would be give "not enough data", never a guessed knee', () => {
  const tooFew = 'only 12 requests in its steady window (at least 20 needed)';
  const below = findKnee([level(10, 'unclear', tooFew), level(20, 'fell-behind', 'x')]);
  assert.equal(below.finding, 'not-enough-data');
  assert.match(below.sentence, /^Not enough data to place the knee: at 20\.00 req\/s x, and no level below/);
  const above = findKnee([level(10, 'kept-up'), level(20, 'unclear', tooFew)]);
  assert.equal(above.finding, 'not-enough-data');
  assert.match(above.sentence, /but at 20\.00 req\/s only 12 requests in its steady window/);
  assert.equal(findKnee([level(5, 'fell-behind', 'y')]).finding, 'past-knee');
  assert.equal(findKnee([level(5, 'kept-up'), level(8, 'kept-up')]).finding, 'no-knee');
  assert.equal(findKnee([]).finding, 'no-levels');
});
