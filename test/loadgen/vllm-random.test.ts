// loadgen/vllm-random against draws made by CPython and numpy themselves (fixtures/vllm-009e6d4a/rng-vectors.json,
// written by rng-vectors.py beside it): every value must be equal, bit for bit where no libm call is involved,
// within 1e-12 relative where numpy's log/pow and V8's may round the last bit differently.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { NumpyGenerator } from '../../loadgen/vllm-random/numpy-generator.js';
import { NumpyRandomState } from '../../loadgen/vllm-random/numpy-random-state.js';
import { PythonRandom } from '../../loadgen/vllm-random/python-random.js';

interface Vectors {
  python: Array<{
    seed: number;
    random: number[];
    getrandbits: number[];
    shuffle50: number[];
    choice: string[];
    randint: number[];
  }>;
  numpy_legacy: Array<{
    seed: number;
    random_sample: number[];
    standard_normal: number[];
    standard_exponential: number[];
    gamma: Record<string, number[]>;
    randint: Array<{ low: number; high: number; size: number; values: number[] }>;
    gamma_after_randint: number[];
  }>;
  numpy_generator: Array<{
    seed: number;
    integers: Array<{ low: number; high: number; size: number; values: number[] }>;
  }>;
}

const vectors = JSON.parse(
  readFileSync(
    new URL('../../../test/loadgen/fixtures/vllm-009e6d4a/rng-vectors.json', import.meta.url),
    'utf8',
  ),
) as Vectors;

function assertClose(actual: number[], expected: number[], what: string): void {
  assert.equal(actual.length, expected.length, what);
  for (let i = 0; i < expected.length; i++) {
    const e = expected[i] as number;
    const a = actual[i] as number;
    assert.ok(Math.abs(a - e) <= 1e-12 * Math.max(1, Math.abs(e)), `${what}[${i}]: ${a} vs numpy's ${e}`);
  }
}

for (const c of vectors.python) {
  test(`Python random, seed ${c.seed}: random, getrandbits, shuffle, choice, randint as CPython`, () => {
    const r = new PythonRandom(c.seed);
    assert.deepEqual(
      Array.from({ length: 5 }, () => r.random()),
      c.random,
    );
    assert.deepEqual(
      [1, 7, 17, 32, 33, 53].map((k) => r.getrandbits(k)),
      c.getrandbits,
    );
    assert.deepEqual(r.shuffle(Array.from({ length: 50 }, (_, i) => i)), c.shuffle50);
    assert.deepEqual(
      Array.from({ length: 10 }, () => r.choice([...'abcde'])),
      c.choice,
    );
    assert.deepEqual(
      Array.from({ length: 10 }, () => r.randint(1, 1000)),
      c.randint,
    );
  });
}

for (const c of vectors.numpy_legacy) {
  test(`numpy legacy state, seed ${c.seed}: uniform, normal, exponential and gamma draws as numpy`, () => {
    const s = new NumpyRandomState(c.seed);
    assert.deepEqual(
      Array.from({ length: 5 }, () => s.randomSample()),
      c.random_sample,
    );
    assertClose(
      Array.from({ length: 5 }, () => s.standardNormal()),
      c.standard_normal,
      'standard_normal',
    );
    assertClose(
      Array.from({ length: 5 }, () => s.standardExponential()),
      c.standard_exponential,
      'standard_exponential',
    );
    for (const [shape, expected] of Object.entries(c.gamma)) {
      assertClose(
        Array.from({ length: expected.length }, () => s.gamma(Number(shape), 0.25)),
        expected,
        `gamma(${shape})`,
      );
    }
  });
}

for (const c of vectors.numpy_legacy) {
  test(`numpy legacy state, seed ${c.seed}: randint as numpy, leaving the state where numpy leaves it`, () => {
    const s = new NumpyRandomState(c.seed);
    for (const draw of c.randint)
      assert.deepEqual(s.randint(draw.low, draw.high, draw.size), draw.values, `[${draw.low}, ${draw.high})`);
    // A clone draws what the state itself would, and drawing from it leaves the state alone.
    const copy = s.clone();
    assertClose(
      Array.from({ length: 5 }, () => copy.gamma(0.5, 0.25)),
      c.gamma_after_randint,
      'gamma after randint (clone)',
    );
    assertClose(
      Array.from({ length: 5 }, () => s.gamma(0.5, 0.25)),
      c.gamma_after_randint,
      'gamma after randint',
    );
  });
}

test('randint refuses ranges numpy would draw 64-bit words for, and empty ones', () => {
  const s = new NumpyRandomState(0);
  assert.throws(() => s.randint(0, 2 ** 32 + 1, 1), RangeError);
  assert.throws(() => s.randint(5, 5, 1), RangeError);
});

for (const c of vectors.numpy_generator) {
  test(`numpy default_rng, seed ${c.seed}: integers() as numpy, an empty range drawing nothing`, () => {
    const g = new NumpyGenerator(c.seed);
    for (const draw of c.integers)
      assert.deepEqual(
        g.integers(draw.low, draw.high, draw.size),
        draw.values,
        `[${draw.low}, ${draw.high})`,
      );
  });
}

test('numpy refuses seeds outside 0..2**32-1, and so do we', () => {
  assert.throws(() => new NumpyRandomState(-1), /between 0 and 2\*\*32 - 1/);
  assert.throws(() => new NumpyRandomState(2 ** 32), /between 0 and 2\*\*32 - 1/);
});
