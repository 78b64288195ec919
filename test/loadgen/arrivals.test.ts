// The arrival schedule: gamma gaps by burstiness, seeded and never going backwards, rate inf at t = 0.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { arrivalSchedule } from '../../loadgen/arrivals.js';
import { UserFacingError } from '../../src/shared/user-facing-error.js';

function gaps(offsets: number[]): number[] {
  return offsets.map((at, i) => at - (i === 0 ? 0 : (offsets[i - 1] as number)));
}

function meanAndCv(values: number[]): { mean: number; cv: number } {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const variance = values.reduce((a, b) => a + (b - mean) ** 2, 0) / values.length;
  return { mean, cv: Math.sqrt(variance) / mean };
}

for (const burstiness of [1, 0.5]) {
  test(`gamma gaps with burstiness ${burstiness}: mean 1/rate, CV 1/sqrt(burstiness)`, () => {
    const count = 20000;
    const { offsetsMs } = arrivalSchedule(count, { requestRate: 10, burstiness, seed: 3 });
    const { mean, cv } = meanAndCv(gaps(offsetsMs));
    // Rescaled so the last request lands exactly at N / rate: the mean gap is exactly 100 ms.
    assert.ok(Math.abs((offsetsMs[count - 1] as number) - 2_000_000) < 1e-6);
    assert.ok(Math.abs(mean - 100) < 1e-9, `mean ${mean}`);
    const expectedCv = 1 / Math.sqrt(burstiness);
    assert.ok(Math.abs(cv - expectedCv) < 0.04 * expectedCv, `cv ${cv} vs ${expectedCv}`);
  });
}

test('the same seed gives the same schedule; offsets never go backwards', () => {
  const a = arrivalSchedule(500, { requestRate: 4, burstiness: 0.7, seed: 11 });
  const b = arrivalSchedule(500, { requestRate: 4, burstiness: 0.7, seed: 11 });
  assert.deepEqual(a, b);
  for (let i = 1; i < 500; i++) assert.ok((a.offsetsMs[i] as number) >= (a.offsetsMs[i - 1] as number));
});

test('rate inf sends everything at t = 0; infinite burstiness gives even gaps', () => {
  assert.deepEqual(
    arrivalSchedule(3, { requestRate: Number.POSITIVE_INFINITY, burstiness: 1, seed: 0 }).offsetsMs,
    [0, 0, 0],
  );
  const even = arrivalSchedule(4, {
    requestRate: 2,
    burstiness: Number.POSITIVE_INFINITY,
    seed: 0,
  }).offsetsMs;
  assert.deepEqual(even, [500, 1000, 1500, 2000]);
});

test('ramp-up: per-request rate goes linearly or geometrically from start to end rps', () => {
  const linear = arrivalSchedule(5, {
    requestRate: Number.POSITIVE_INFINITY,
    burstiness: 1,
    seed: 0,
    rampUp: { strategy: 'linear', startRps: 1, endRps: 9 },
  });
  assert.deepEqual(linear.ratesRps, [1, 3, 5, 7, 9]);
  const exponential = arrivalSchedule(3, {
    requestRate: Number.POSITIVE_INFINITY,
    burstiness: Number.POSITIVE_INFINITY,
    seed: 0,
    rampUp: { strategy: 'exponential', startRps: 1, endRps: 100 },
  });
  assert.deepEqual(exponential.ratesRps, [1, 10, 100]);
  // Constant gaps 1/rate, not rescaled: 1000 + 100 + 10 ms.
  assert.deepEqual(
    exponential.offsetsMs.map((ms) => Math.round(ms * 1000) / 1000),
    [1000, 1100, 1110],
  );
});

test('rejects rates and burstiness that make no schedule', () => {
  assert.throws(() => arrivalSchedule(1, { requestRate: 0, burstiness: 1, seed: 0 }), UserFacingError);
  assert.throws(() => arrivalSchedule(1, { requestRate: 1, burstiness: 0, seed: 0 }), UserFacingError);
  assert.throws(
    () =>
      arrivalSchedule(1, {
        requestRate: 1,
        burstiness: 1,
        seed: 0,
        rampUp: { strategy: 'exponential', startRps: 0, endRps: 5 },
      }),
    UserFacingError,
  );
});
