// The registry of bench's optional features (loadgen/features.ts, as bench types it in loadgen/bench/features.ts) against the contract of loadgen/feature.ts:
// each feature is named once, a feature the shard merge merges can also be read back from a shard's file, and a
// part written to the result JSON reads back as the same keys (so merge, compare and report see what bench saved).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BENCH_FEATURES, featureKeys } from '../../loadgen/bench/features.js';
import { cancellationFeature } from '../../loadgen/cancellation/cancellation-feature.js';
import { earlyStopFeature } from '../../loadgen/early-stop/early-stop-feature.js';
import type { AnyRunFeature } from '../../loadgen/feature.js';

test('every registered feature has a name of its own', () => {
  const names = BENCH_FEATURES.map((feature) => feature.name);
  assert.equal(new Set(names).size, names.length, names.join(', '));
});

test('a feature the shard merge merges can be read back from a saved result', () => {
  for (const feature of BENCH_FEATURES) {
    if (feature.merge === undefined) continue;
    assert.ok(feature.json?.read !== undefined, `${feature.name} merges shards' parts it cannot read`);
  }
});

test("a part written under tokenmeter reads back to the same keys (cancellation's, early stop's)", () => {
  const parts = new Map<AnyRunFeature, unknown>([
    [
      cancellationFeature,
      {
        settings: { ratePercent: 30, delayMs: 500 },
        counts: { chosen: 6, cancelled: 5, endedBeforeDelay: 1 },
      },
    ],
    [
      earlyStopFeature,
      {
        reason: 'error_rate',
        atS: 2.5,
        windowS: 10,
        message: 'more than 50% of the requests that finished in the last 10 s failed',
        figures: { failed: 6, finished: 10 },
      },
    ],
  ]);
  const tokenmeter = featureKeys(parts, false);
  const result = { tokenmeter };
  for (const [feature, part] of parts) {
    const read = feature.json?.read?.(result);
    assert.deepEqual(read, part, feature.name);
    assert.deepEqual(
      featureKeys(new Map([[feature, read]]), false),
      featureKeys(new Map([[feature, part]]), false),
    );
  }
});
