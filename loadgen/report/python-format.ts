// The few pieces of Python's string formatting that vLLM's summary and file names rely on, reproduced exactly
// so our output can be diffed against vLLM's: `{:<40}`, `{:<10.2f}`, `{s:{c}^{n}}`, str(float), and floats in JSON.

import { randomUUID } from 'node:crypto';

/** Python `'{:<N}'.format(text)`: left-aligned, padded with spaces, never truncated. */
export function padRight(text: string, width: number): string {
  const length = [...text].length; // Python counts code points
  return length >= width ? text : text + ' '.repeat(width - length);
}

/** Python `'{s:{c}^{n}}'.format(...)`: centred; when the padding is odd the extra character goes right. */
export function centre(text: string, width: number, fill: string): string {
  const padding = width - [...text].length;
  if (padding <= 0) return text;
  const left = Math.floor(padding / 2);
  return fill.repeat(left) + text + fill.repeat(padding - left);
}

/**
 * Python `'{:.2f}'.format(x)`. JavaScript's toFixed agrees except on exact binary ties (x = k/8 with k odd,
 * e.g. 0.125), which Python rounds half to even and toFixed rounds up; and on non-finite values.
 */
export function fixed2(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  const eighths = x * 8;
  if (Number.isInteger(eighths) && eighths % 2 !== 0 && Math.abs(x) < 2 ** 40) {
    const hundredths = x * 100; // exact: x has at most 3 binary fraction digits
    const down = Math.floor(hundredths);
    const even = down % 2 === 0 ? down : down + 1;
    return (even / 100).toFixed(2);
  }
  return x.toFixed(2);
}

/**
 * Python `str(x)` for a float: the shortest round-trip digits (same as JavaScript's), in fixed notation with
 * at least one decimal when the exponent is within [-4, 16), else `d.ddde+XX`. So 1 -> "1.0", 0.5 -> "0.5",
 * 1e-5 -> "1e-05", Infinity -> "inf".
 */
export function pythonFloatStr(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const [mantissa = '', exponentText = '0'] = x.toExponential().split('e');
  const exponent = Number(exponentText);
  const negative = mantissa.startsWith('-');
  const digits = mantissa.replace('-', '').replace('.', '');
  const sign = negative ? '-' : '';
  if (exponent < -4 || exponent >= 16) {
    const fraction = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const expSign = exponent < 0 ? '-' : '+';
    return `${sign}${fraction}e${expSign}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
  const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, '0');
  const fraction = digits.slice(exponent + 1);
  return `${sign}${whole}.${fraction === '' ? '0' : fraction}`;
}

/** vLLM's percentile label: `str(int(p))` when p is whole, else `str(p)` (99 -> "99", 99.9 -> "99.9"). */
export function percentileWord(p: number): string {
  return Number.isInteger(p) ? String(p) : pythonFloatStr(p);
}

/**
 * JSON text of `value` with the numbers under `isFloatKey`'s top-level keys written as Python's json.dump writes a
 * float (20 -> 20.0, as vLLM's result file has them: JSON.stringify would write 20). Arrays under such a key,
 * nested or not, have each number written so. Each number is swapped for a string that no other string can be
 * (a fresh nonce), stringified, then unquoted.
 */
export function jsonWithPythonFloats(
  value: Readonly<Record<string, unknown>>,
  isFloatKey: (key: string) => boolean,
  indent?: number,
): string {
  const marker = `\u0001${randomUUID()}:`;
  const mark = (v: unknown): unknown =>
    typeof v === 'number' && Number.isFinite(v)
      ? `${marker}${pythonFloatStr(v)}`
      : Array.isArray(v)
        ? v.map(mark)
        : v;
  const marked = Object.fromEntries(
    Object.entries(value).map(([key, v]) => [key, isFloatKey(key) ? mark(v) : v]),
  );
  const quoted = new RegExp(`"\\\\u0001${marker.slice(1)}([^"]*)"`, 'g');
  return JSON.stringify(marked, null, indent).replace(quoted, '$1');
}
