// log and pow rounded correctly (to the double nearest the exact value), computed in double-double arithmetic.
// numpy's gamma sampler calls the C library's log (and pow below shape 1), and vLLM's exponential ramp-up raises
// its rate ratio with Python's `**` (the C library's pow). glibc's are correct to within 0.52 ulp; V8's Math.log
// and `**` (fdlibm's) to within 1 ulp, and V8's log disagreed with glibc's on about 7% of the arguments numpy's
// samplers give it, making about 1.6% of the gamma draws (burstiness 0.5) an ulp or more off numpy's, and `**` put
// vLLM's exponential ramp's send times 1e-12 ms off (Node 24's `**` rounded all 500 test arguments correctly,
// its Math.log did not). Correctly rounded, these agree with glibc's wherever glibc's
// are themselves correct (all but about 0.1% of arguments); the rest cannot be reproduced short of glibc's own
// tables (docs/loadgen-reference.md gives the bound).

/** 2**27 + 1: Veltkamp's splitter, halving a double's 53 bits so that products of halves are exact. */
const SPLITTER = 134217729;

/** a + b as hi + lo, exactly. */
function twoSum(a: number, b: number, out: Float64Array): void {
  const s = a + b;
  const bb = s - a;
  out[0] = s;
  out[1] = a - (s - bb) + (b - bb);
}

/** a * b as hi + lo, exactly (Dekker's product: JavaScript has no fused multiply-add). */
function twoProduct(a: number, b: number, out: Float64Array): void {
  const p = a * b;
  let t = SPLITTER * a;
  const ah = t - (t - a);
  const al = a - ah;
  t = SPLITTER * b;
  const bh = t - (t - b);
  const bl = b - bh;
  out[0] = p;
  out[1] = ah * bh - p + ah * bl + al * bh + al * bl;
}

const scratch = new Float64Array(2);
const scratch2 = new Float64Array(2);

/** (ah + al) * (bh + bl) into out, to about 2**-104 relative. */
function ddMultiply(ah: number, al: number, bh: number, bl: number, out: Float64Array): void {
  twoProduct(ah, bh, scratch2);
  twoSum(scratch2[0] as number, (scratch2[1] as number) + ah * bl + al * bh, out);
}

/** (ah + al) + (bh + bl) into out. */
function ddAdd(ah: number, al: number, bh: number, bl: number, out: Float64Array): void {
  twoSum(ah, bh, scratch2);
  twoSum(scratch2[0] as number, (scratch2[1] as number) + al + bl, out);
}

/** 1 / d as a double-double. */
function reciprocal(d: number): readonly [number, number] {
  const hi = 1 / d;
  twoProduct(hi, d, scratch);
  // 1 - hi * d, exactly as a double-double, divided by d: the low half of 1 / d.
  return [hi, (1 - (scratch[0] as number) - (scratch[1] as number)) / d] as const;
}

/** 1 / (2k + 1), k = 0 .. DD_TERMS - 1: the log series' leading coefficients. */
const DD_TERMS = 12;
const TAIL_TERMS = 12;
const COEFFICIENTS = Array.from({ length: DD_TERMS }, (_, k) => reciprocal(2 * k + 1));
/** 1 / n, n = 0 .. EXP_TERMS (entry 0 unused): the exp series' ratios. */
const EXP_TERMS = 12;
const RECIPROCALS = Array.from({ length: EXP_TERMS + 1 }, (_, n) => reciprocal(Math.max(n, 1)));

/** ln 2 as a double-double. */
const LN2_HI = Math.LN2;
const LN2_LO = 2.3190468138462996e-17;

const view = new DataView(new ArrayBuffer(8));
const acc = new Float64Array(2);
const part = new Float64Array(2);

/**
 * log(x) as a double-double into `out`, to about 2**-104 relative, for a finite x > 0. The argument is reduced to
 * m * 2**e with m in [sqrt(1/2), sqrt(2)), and log(m) = 2 atanh(s), s = (m - 1) / (m + 1), |s| < 0.172:
 * 2s (1 + s^2/3 + s^4/5 + ...).
 */
function logDoubleDouble(x: number, out: Float64Array): void {
  let exponent = 0;
  let scaled = x;
  if (scaled < 2 ** -1022) {
    scaled *= 2 ** 54; // subnormal: make it normal first
    exponent = -54;
  }
  view.setFloat64(0, scaled);
  const high = view.getUint32(0);
  exponent += (high >>> 20) - 1023;
  view.setUint32(0, (high & 0x000fffff) | 0x3ff00000);
  let m = view.getFloat64(0); // [1, 2)
  if (m > Math.SQRT2) {
    m /= 2; // exact
    exponent += 1;
  }
  const f = m - 1; // exact (Sterbenz)
  twoSum(m, 1, part);
  const dh = part[0] as number;
  const dl = part[1] as number;
  const sh = f / dh;
  twoProduct(sh, dh, scratch);
  const sl = (f - (scratch[0] as number) - (scratch[1] as number) - sh * dl) / dh;
  ddMultiply(sh, sl, sh, sl, part);
  const zh = part[0] as number;
  const zl = part[1] as number;
  // Horner's rule: the terms from z^DD_TERMS on are below 2**-52 of the sum, so their sum in plain doubles is
  // exact enough; it enters under the last double-double coefficient, times z.
  let rest = 0;
  for (let k = DD_TERMS + TAIL_TERMS - 1; k >= DD_TERMS; k--) rest = rest * zh + 1 / (2 * k + 1);
  const [lastHi, lastLo] = COEFFICIENTS[DD_TERMS - 1] as readonly [number, number];
  ddAdd(lastHi, lastLo, zh * rest, 0, out);
  for (let k = DD_TERMS - 2; k >= 0; k--) {
    const [ch, cl] = COEFFICIENTS[k] as readonly [number, number];
    ddMultiply(out[0] as number, out[1] as number, zh, zl, out);
    ddAdd(out[0] as number, out[1] as number, ch, cl, out);
  }
  ddMultiply(out[0] as number, out[1] as number, 2 * sh, 2 * sl, out);
  twoProduct(exponent, LN2_HI, part);
  ddAdd(part[0] as number, (part[1] as number) + exponent * LN2_LO, out[0] as number, out[1] as number, out);
}

export function correctlyRoundedLog(x: number): number {
  if (!(x > 0) || x === Number.POSITIVE_INFINITY) return Math.log(x); // NaN, 0, negatives, Infinity
  logDoubleDouble(x, acc);
  return (acc[0] as number) + (acc[1] as number);
}

// EXP_TERMS Taylor terms of exp(r) for |r| < 2**-10 * ln(2) / 2: the 12th is below 2**-110.
/** exp(r) = exp(r / 2**SQUARINGS) ** (2**SQUARINGS). */
const SQUARINGS = 10;

/** x ** y, correctly rounded, for x > 0 finite and y finite; other arguments (and results past the normal
 *  range) as `**` gives them. */
export function correctlyRoundedPow(x: number, y: number): number {
  if (!(x > 0) || x === Number.POSITIVE_INFINITY || !Number.isFinite(y) || y === 0 || x === 1) return x ** y;
  if (y === 1) return x;
  logDoubleDouble(x, acc);
  // t = y log x as a double-double.
  twoProduct(y, acc[0] as number, part);
  twoSum(part[0] as number, (part[1] as number) + y * (acc[1] as number), acc);
  const th = acc[0] as number;
  const tl = acc[1] as number;
  if (!(Math.abs(th) < 708)) return x ** y; // overflow, or a result below the normal range
  // t = k ln 2 + r, |r| <= ln(2) / 2, exactly as a double-double.
  const k = Math.round(th / LN2_HI);
  twoProduct(k, LN2_HI, part);
  twoSum(th - (part[0] as number), tl - (part[1] as number) - k * LN2_LO, acc); // th - k ln2hi is exact (Sterbenz)
  const rh = (acc[0] as number) / 2 ** SQUARINGS; // exact
  const rl = (acc[1] as number) / 2 ** SQUARINGS;
  // exp(r) - 1 = r (1 + r/2 (1 + r/3 (1 + ...))), kept as e - 1 so that the squarings below keep its digits.
  acc[0] = 1;
  acc[1] = 0;
  for (let n = EXP_TERMS; n >= 2; n--) {
    const [ih, il] = RECIPROCALS[n] as readonly [number, number];
    ddMultiply(acc[0] as number, acc[1] as number, rh, rl, acc);
    ddMultiply(acc[0] as number, acc[1] as number, ih, il, acc);
    ddAdd(acc[0] as number, acc[1] as number, 1, 0, acc);
  }
  ddMultiply(acc[0] as number, acc[1] as number, rh, rl, acc);
  let mh = acc[0] as number;
  let ml = acc[1] as number;
  // (1 + m)^2 - 1 = 2m + m^2, SQUARINGS times.
  for (let i = 0; i < SQUARINGS; i++) {
    ddMultiply(mh, ml, mh, ml, part);
    ddAdd(2 * mh, 2 * ml, part[0] as number, part[1] as number, part);
    mh = part[0] as number;
    ml = part[1] as number;
  }
  ddAdd(1, 0, mh, ml, part);
  return ((part[0] as number) + (part[1] as number)) * 2 ** k;
}
