// numpy's legacy global state (`np.random.seed(int)`, then `np.random.gamma(shape, scale)`), which vLLM's
// client draws its inter-arrival gaps from, and `np.random.randint`, which its prefix_repetition dataset draws
// its token ids from on the same state (so that dataset's draws come before the gaps). The legacy samplers are frozen by numpy's compatibility policy, so
// reproducing them (the polar Box-Muller normal with its cached second value, Marsaglia and Tsang's gamma for
// shape > 1, the rejection method of legacy_standard_gamma for shape < 1, -log(1 - U) for shape 1) gives
// vLLM's gaps, with its log correctly rounded (correctly-rounded-log.ts) since numpy's C library's is all but
// always: over 200 seeds x 1,000 draws, 0.08% of the draws at shape 0.5 and 1 differ from numpy's (glibc 2.36) by
// 1 to 3 ulp, where glibc's log or pow itself rounds the wrong way (test/loadgen/gamma-draws.test.ts).

import { correctlyRoundedLog as log, correctlyRoundedPow as pow } from './correctly-rounded-math.js';
import { Mt19937 } from './mt19937.js';

export class NumpyRandomState {
  private mt: Mt19937;
  private cachedGauss: number | undefined;

  /** np.random.seed(seed): numpy takes 0 <= seed <= 2**32 - 1 only. */
  constructor(seed: number) {
    if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff)
      throw new RangeError(`numpy seeds must be between 0 and 2**32 - 1, got ${seed}`);
    this.mt = Mt19937.fromSeed(seed);
  }

  /** A state drawing the same values from here on, leaving this one where it is. */
  clone(): NumpyRandomState {
    const copy = new NumpyRandomState(0);
    copy.mt = this.mt.clone();
    copy.cachedGauss = this.cachedGauss;
    return copy;
  }

  /**
   * np.random.randint(low, high, size) with the default int64 type: numpy's legacy bounded draw, for a range of
   * at most 2**32 values (one 32-bit word each, masked to the range's bit width and drawn again while above it).
   */
  randint(low: number, high: number, size: number): number[] {
    const range = high - 1 - low;
    if (!Number.isSafeInteger(low) || !Number.isSafeInteger(high) || range < 0 || range > 0xffffffff)
      throw new RangeError(`randint needs whole bounds low < high <= low + 2**32, got [${low}, ${high})`);
    const values: number[] = [];
    if (range === 0) return Array.from({ length: size }, () => low);
    if (range === 0xffffffff) {
      for (let i = 0; i < size; i++) values.push(low + this.mt.nextUint32());
      return values;
    }
    let mask = range;
    for (let shift = 1; shift <= 16; shift *= 2) mask |= mask >>> shift;
    mask >>>= 0;
    for (let i = 0; i < size; i++) {
      let value: number;
      do value = (this.mt.nextUint32() & mask) >>> 0;
      while (value > range);
      values.push(low + value);
    }
    return values;
  }

  /** np.random.random_sample(). */
  randomSample(): number {
    return this.mt.nextDouble();
  }

  /** np.random.standard_exponential(). */
  standardExponential(): number {
    return -log(1 - this.mt.nextDouble());
  }

  /** np.random.standard_normal() (legacy_gauss). */
  standardNormal(): number {
    if (this.cachedGauss !== undefined) {
      const value = this.cachedGauss;
      this.cachedGauss = undefined;
      return value;
    }
    let x1: number;
    let x2: number;
    let r2: number;
    do {
      x1 = 2 * this.mt.nextDouble() - 1;
      x2 = 2 * this.mt.nextDouble() - 1;
      r2 = x1 * x1 + x2 * x2;
    } while (r2 >= 1 || r2 === 0);
    const f = Math.sqrt((-2 * log(r2)) / r2);
    this.cachedGauss = f * x1;
    return f * x2;
  }

  /** np.random.standard_gamma(shape) (legacy_standard_gamma). */
  standardGamma(shape: number): number {
    if (shape === 1) return this.standardExponential();
    if (shape === 0) return 0;
    if (shape < 1) {
      for (;;) {
        const u = this.mt.nextDouble();
        const v = this.standardExponential();
        if (u <= 1 - shape) {
          const x = pow(u, 1 / shape);
          if (x <= v) return x;
        } else {
          const y = -log((1 - u) / shape);
          const x = pow(1 - shape + shape * y, 1 / shape);
          if (x <= v + y) return x;
        }
      }
    }
    const b = shape - 1 / 3;
    const c = 1 / Math.sqrt(9 * b);
    for (;;) {
      let x: number;
      let v: number;
      do {
        x = this.standardNormal();
        v = 1 + c * x;
      } while (v <= 0);
      v = v * v * v;
      const u = this.mt.nextDouble();
      if (u < 1 - 0.0331 * (x * x) * (x * x)) return b * v;
      if (log(u) < 0.5 * x * x + b * (1 - v + log(v))) return b * v;
    }
  }

  /** np.random.gamma(shape, scale). */
  gamma(shape: number, scale: number): number {
    return scale * this.standardGamma(shape);
  }
}
