// numpy's `np.random.default_rng(seed)`: a SeedSequence expanding the seed into a PCG64 state, and
// `Generator.integers(low, high, size)` by Lemire's bounded method on 32-bit draws. vLLM's `random` dataset
// draws its per-request input lengths, output lengths and vocabulary offsets this way, so the same --seed
// gives the same lengths here. 128-bit arithmetic is done with BigInt: the draws are few (three per request).

const MASK32 = 0xffffffffn;
const MASK64 = 0xffffffffffffffffn;
const MASK128 = (1n << 128n) - 1n;
const PCG_MULTIPLIER = 0x2360ed051fc65da44385df649fccf645n;

// SeedSequence's constants (numpy/random/bit_generator.pyx).
const INIT_A = 0x43b0d7e5;
const MULT_A = 0x931e8875;
const INIT_B = 0x8b51f9dd;
const MULT_B = 0x58f38ded;
const MIX_MULT_L = 0xca01f9dd;
const MIX_MULT_R = 0x4973f715;
const XSHIFT = 16;
const POOL_SIZE = 4;

/** SeedSequence(seed).generate_state(words, uint32). */
export function seedSequenceState(seed: number, words: number): number[] {
  if (!Number.isSafeInteger(seed) || seed < 0)
    throw new RangeError(`a SeedSequence seed must be a whole number >= 0, got ${seed}`);
  const entropy: number[] = [];
  let rest = BigInt(seed);
  do {
    entropy.push(Number(rest & MASK32));
    rest >>= 32n;
  } while (rest > 0n);

  let hashConst = INIT_A;
  const hashmix = (input: number): number => {
    let value = (input ^ hashConst) >>> 0;
    hashConst = Math.imul(hashConst, MULT_A) >>> 0;
    value = Math.imul(value, hashConst) >>> 0;
    return (value ^ (value >>> XSHIFT)) >>> 0;
  };
  const mix = (x: number, y: number): number => {
    const result = (Math.imul(MIX_MULT_L, x) - Math.imul(MIX_MULT_R, y)) >>> 0;
    return (result ^ (result >>> XSHIFT)) >>> 0;
  };
  const pool: number[] = [];
  for (let i = 0; i < POOL_SIZE; i++) pool.push(hashmix(i < entropy.length ? (entropy[i] as number) : 0));
  for (let src = 0; src < POOL_SIZE; src++)
    for (let dst = 0; dst < POOL_SIZE; dst++)
      if (src !== dst) pool[dst] = mix(pool[dst] as number, hashmix(pool[src] as number));
  for (let src = POOL_SIZE; src < entropy.length; src++)
    for (let dst = 0; dst < POOL_SIZE; dst++)
      pool[dst] = mix(pool[dst] as number, hashmix(entropy[src] as number));

  let outConst = INIT_B;
  const out: number[] = [];
  for (let i = 0; i < words; i++) {
    let value = ((pool[i % POOL_SIZE] as number) ^ outConst) >>> 0;
    outConst = Math.imul(outConst, MULT_B) >>> 0;
    value = Math.imul(value, outConst) >>> 0;
    out.push((value ^ (value >>> XSHIFT)) >>> 0);
  }
  return out;
}

export class NumpyGenerator {
  private state = 0n;
  private readonly increment: bigint;
  private buffered: number | undefined;

  /** np.random.default_rng(seed). */
  constructor(seed: number) {
    const words = seedSequenceState(seed, 8).map(BigInt);
    // generate_state(4, uint64) is the 8 words viewed as little-endian 64-bit pairs.
    const u64 = (k: number): bigint => ((words[2 * k + 1] as bigint) << 32n) | (words[2 * k] as bigint);
    const initState = (u64(0) << 64n) | u64(1);
    const initSequence = (u64(2) << 64n) | u64(3);
    this.increment = ((initSequence << 1n) | 1n) & MASK128;
    this.step();
    this.state = (this.state + initState) & MASK128;
    this.step();
  }

  private step(): void {
    this.state = (this.state * PCG_MULTIPLIER + this.increment) & MASK128;
  }

  /** PCG64's XSL-RR output of the next state. */
  nextUint64(): bigint {
    this.step();
    const xored = ((this.state >> 64n) ^ this.state) & MASK64;
    const rotation = this.state >> 122n;
    return ((xored >> rotation) | (xored << ((64n - rotation) & 63n))) & MASK64;
  }

  /** next_uint32: the low half of a 64-bit draw, then its high half. */
  nextUint32(): number {
    if (this.buffered !== undefined) {
      const value = this.buffered;
      this.buffered = undefined;
      return value;
    }
    const next = this.nextUint64();
    this.buffered = Number(next >> 32n);
    return Number(next & MASK32);
  }

  /** Lemire's bounded draw in [0, range] for range < 2**32 - 1 (buffered_bounded_lemire_uint32). */
  private boundedUint32(range: number): number {
    const exclusive = BigInt(range + 1);
    let m = BigInt(this.nextUint32()) * exclusive;
    let leftover = m & MASK32;
    if (leftover < exclusive) {
      const threshold = (MASK32 - BigInt(range)) % exclusive;
      while (leftover < threshold) {
        m = BigInt(this.nextUint32()) * exclusive;
        leftover = m & MASK32;
      }
    }
    return Number(m >> 32n);
  }

  /** Generator.integers(low, high, size): `size` integers in [low, high). An empty range [low, low + 1) draws nothing. */
  integers(low: number, high: number, size: number): number[] {
    const range = high - 1 - low;
    if (!Number.isSafeInteger(range) || range < 0)
      throw new RangeError(`integers: low >= high (${low}, ${high})`);
    const out: number[] = [];
    for (let i = 0; i < size; i++) {
      if (range === 0) out.push(low);
      else if (range === 0xffffffff) out.push(low + this.nextUint32());
      else if (range < 0xffffffff) out.push(low + this.boundedUint32(range));
      else
        throw new RangeError('integers: ranges of 2**32 and more are not needed by vLLM and not supported');
    }
    return out;
  }
}
