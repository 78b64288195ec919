// The Mersenne Twister MT19937 (Matsumoto and Nishimura's reference algorithm), the generator behind both
// Python's `random` module and numpy's legacy `np.random` state, which vLLM's benchmark client seeds with
// `--seed`. Reproducing its words bit for bit is what makes our prompt order and arrival times vLLM's own.
// The two libraries seed it differently: Python's `random.seed(int)` runs init_by_array over the seed's 32-bit
// words, numpy's `np.random.seed(int)` runs the plain init_genrand.

const N = 624;
const M = 397;
const MATRIX_A = 0x9908b0df;
const UPPER_MASK = 0x80000000;
const LOWER_MASK = 0x7fffffff;

export class Mt19937 {
  private readonly mt = new Uint32Array(N);
  private index = N + 1;

  /** A generator in the same state, drawing the same words from here on without touching this one. */
  clone(): Mt19937 {
    const copy = new Mt19937();
    copy.mt.set(this.mt);
    copy.index = this.index;
    return copy;
  }

  /** init_genrand: numpy's legacy seeding of an integer seed. */
  static fromSeed(seed: number): Mt19937 {
    const generator = new Mt19937();
    generator.initGenrand(seed >>> 0);
    return generator;
  }

  /** init_by_array: Python's seeding, with the key's 32-bit words least significant first. */
  static fromKey(key: readonly number[]): Mt19937 {
    const generator = new Mt19937();
    generator.initByArray(key);
    return generator;
  }

  private initGenrand(seed: number): void {
    const mt = this.mt;
    mt[0] = seed;
    for (let i = 1; i < N; i++) {
      const previous = mt[i - 1] as number;
      mt[i] = (Math.imul(1812433253, previous ^ (previous >>> 30)) + i) >>> 0;
    }
    this.index = N;
  }

  private initByArray(key: readonly number[]): void {
    const mt = this.mt;
    this.initGenrand(19650218);
    let i = 1;
    let j = 0;
    for (let k = Math.max(N, key.length); k > 0; k--) {
      const previous = mt[i - 1] as number;
      mt[i] =
        (((mt[i] as number) ^ Math.imul(previous ^ (previous >>> 30), 1664525)) + (key[j] as number) + j) >>>
        0;
      i++;
      j++;
      if (i >= N) {
        mt[0] = mt[N - 1] as number;
        i = 1;
      }
      if (j >= key.length) j = 0;
    }
    for (let k = N - 1; k > 0; k--) {
      const previous = mt[i - 1] as number;
      mt[i] = (((mt[i] as number) ^ Math.imul(previous ^ (previous >>> 30), 1566083941)) - i) >>> 0;
      i++;
      if (i >= N) {
        mt[0] = mt[N - 1] as number;
        i = 1;
      }
    }
    mt[0] = 0x80000000;
  }

  private twist(): void {
    const mt = this.mt;
    for (let k = 0; k < N; k++) {
      const y = ((mt[k] as number) & UPPER_MASK) | ((mt[(k + 1) % N] as number) & LOWER_MASK);
      mt[k] = (mt[(k + M) % N] as number) ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
    }
    this.index = 0;
  }

  /** genrand_uint32: the next 32-bit word. */
  nextUint32(): number {
    if (this.index >= N) this.twist();
    let y = this.mt[this.index++] as number;
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** A double in [0, 1) from 53 random bits: Python's random() and numpy's random_sample() alike. */
  nextDouble(): number {
    const a = this.nextUint32() >>> 5;
    const b = this.nextUint32() >>> 6;
    return (a * 67108864 + b) / 9007199254740992;
  }
}
