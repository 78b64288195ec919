// vLLM's inter-arrival gaps are numpy's legacy gamma draws, which call the C library's log (and pow for a shape
// below 1). Ours are held to numpy's own draws at shape 0.5 (--burstiness 0.5), 200 seeds x 1,000 draws
// (fixtures/vllm-009e6d4a/gamma-draws.json, written by Debian's numpy 1.24.2 on glibc 2.36): each of numpy's
// draws is rebuilt exactly from ours and the low 4 bits it kept (the nearest bit pattern with those bits), the
// SHA-256 of each seed's rebuilt draws proving them numpy's; then the draws that differ are counted and measured
// in ulp. The bound held here is the one docs/loadgen-reference.md gives ("The bound").

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { NumpyRandomState } from '../../loadgen/vllm-random/numpy-random-state.js';

const FIXTURE = JSON.parse(
  readFileSync(
    new URL('../../../test/loadgen/fixtures/vllm-009e6d4a/gamma-draws.json', import.meta.url),
    'utf8',
  ),
) as { shape: number; scale: number; seeds: number; draws: number; sha256: string[]; low_nibbles: string };

/** Measured with the correctly rounded log: 164 of the 200,000 draws differ, by 1 to 3 ulp (glibc's own misroundings). */
const MAX_DIFFERING = 200;
const MAX_ULP = 3;

test(`numpy's gamma(${FIXTURE.shape}) over ${FIXTURE.seeds} seeds x ${FIXTURE.draws} draws: at most ${MAX_DIFFERING} draws differ, by at most ${MAX_ULP} ulp`, () => {
  const nibbles = Buffer.from(FIXTURE.low_nibbles, 'base64');
  const bytes = Buffer.alloc(8 * FIXTURE.draws);
  let differing = 0;
  let maxUlp = 0n;
  for (let seed = 0; seed < FIXTURE.seeds; seed++) {
    const state = new NumpyRandomState(seed);
    for (let i = 0; i < FIXTURE.draws; i++) {
      const n = seed * FIXTURE.draws + i;
      const low = BigInt(((nibbles[n >> 1] as number) >> ((n & 1) * 4)) & 0xf);
      bytes.writeDoubleLE(state.gamma(FIXTURE.shape, FIXTURE.scale), 8 * i);
      const ours = bytes.readBigUint64LE(8 * i);
      // numpy's draw: the bit pattern with its low 4 bits nearest to ours (positive doubles order as their bits).
      const base = (ours & ~0xfn) | low;
      const numpy = [base - 16n, base, base + 16n].reduce((best, c) =>
        (c > ours ? c - ours : ours - c) < (best > ours ? best - ours : ours - best) ? c : best,
      );
      if (numpy !== ours) {
        differing++;
        const ulp = numpy > ours ? numpy - ours : ours - numpy;
        if (ulp > maxUlp) maxUlp = ulp;
      }
      bytes.writeBigUint64LE(numpy, 8 * i);
    }
    assert.equal(
      createHash('sha256').update(bytes).digest('hex'),
      FIXTURE.sha256[seed],
      `seed ${seed}: a draw is 8 ulp or more from numpy's (or not numpy's at all)`,
    );
  }
  assert.ok(differing <= MAX_DIFFERING, `${differing} of ${FIXTURE.seeds * FIXTURE.draws} draws differ`);
  assert.ok(maxUlp <= BigInt(MAX_ULP), `a draw differs by ${maxUlp} ulp`);
});
