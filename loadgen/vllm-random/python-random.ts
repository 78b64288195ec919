// CPython's `random.Random` as vLLM's benchmark uses it: `random.seed(int)`, `shuffle` (the ShareGPT order),
// `choice` (oversampling, LoRA module per request) and `randint`, reproduced draw for draw so that the same
// --seed gives the same picks as vLLM's client. Integers below n come from getrandbits(n.bit_length()) with
// rejection (_randbelow_with_getrandbits), as in CPython 3.x.

import { Mt19937 } from './mt19937.js';

/** The 32-bit words of |seed|, least significant first ([0] for 0), which CPython feeds to init_by_array. */
function seedKey(seed: number): number[] {
  if (!Number.isSafeInteger(seed)) throw new RangeError(`seed must be a safe integer, got ${seed}`);
  let rest = BigInt(Math.abs(seed));
  const key: number[] = [];
  do {
    key.push(Number(rest & 0xffffffffn));
    rest >>= 32n;
  } while (rest > 0n);
  return key;
}

const bitLength = (n: number): number => (n === 0 ? 0 : Math.floor(Math.log2(n)) + 1);

export class PythonRandom {
  private readonly mt: Mt19937;

  constructor(seed: number) {
    this.mt = Mt19937.fromKey(seedKey(seed));
  }

  /** random.random(): a double in [0, 1). */
  random(): number {
    return this.mt.nextDouble();
  }

  /** random.getrandbits(k) for 0 <= k <= 53 (words least significant first, the last one shifted). */
  getrandbits(k: number): number {
    if (k < 0 || k > 53) throw new RangeError(`getrandbits(${k}): only 0..53 bits are supported`);
    if (k === 0) return 0;
    if (k <= 32) return this.mt.nextUint32() >>> (32 - k);
    const low = this.mt.nextUint32();
    const high = this.mt.nextUint32() >>> (64 - k);
    return high * 4294967296 + low;
  }

  /** _randbelow(n): uniform in [0, n), n >= 1. */
  randbelow(n: number): number {
    const k = bitLength(n);
    let r = this.getrandbits(k);
    while (r >= n) r = this.getrandbits(k);
    return r;
  }

  /** random.randint(a, b), both ends included. */
  randint(a: number, b: number): number {
    return a + this.randbelow(b - a + 1);
  }

  /** random.choice(items). */
  choice<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('cannot choose from an empty sequence');
    return items[this.randbelow(items.length)] as T;
  }

  /** random.shuffle(items), in place. */
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.randbelow(i + 1);
      const held = items[i] as T;
      items[i] = items[j] as T;
      items[j] = held;
    }
    return items;
  }
}
