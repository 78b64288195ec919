// loadgen/vllm-random/correctly-rounded-math.ts against log(x) and x ** y computed to 60 digits by Python's decimal
// module and rounded once (fixtures/correctly-rounded.json): every value equal, bit for bit. V8's Math.log and `**`
// are not on every Node line (Node 20's `**` got 1,928 of 20,000 such arguments wrong; Node 24's got these 500
// right): each test reports how many of the same arguments this Node's own function gets wrong, so whether the
// module is still needed stays visible, without making a V8 upgrade fail the suite.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import {
  correctlyRoundedLog,
  correctlyRoundedPow,
} from '../../loadgen/vllm-random/correctly-rounded-math.js';

const FIXTURE = JSON.parse(
  readFileSync(new URL('../../../test/loadgen/fixtures/correctly-rounded.json', import.meta.url), 'utf8'),
) as { log: Array<[string, string]>; pow: Array<[string, string, string]> };

/** Python's float.hex() text back to the double. */
function fromHex(text: string): number {
  const match = /^(-?)0x([01])\.([0-9a-f]*)p([+-]\d+)$/.exec(text);
  assert.ok(match !== null, text);
  const [, sign, lead, fraction = '', exponent] = match;
  const mantissa = BigInt(`0x${lead}${fraction}`);
  const value = Number(mantissa) * 2 ** (Number(exponent) - 4 * fraction.length);
  return sign === '-' ? -value : value;
}

test('log: correctly rounded on every argument', (t) => {
  let v8Wrong = 0;
  for (const [x, expected] of FIXTURE.log) {
    assert.equal(correctlyRoundedLog(fromHex(x)), fromHex(expected), `log(${x})`);
    if (Math.log(fromHex(x)) !== fromHex(expected)) v8Wrong++;
  }
  t.diagnostic(
    `Math.log on Node ${process.version}: ${v8Wrong} of ${FIXTURE.log.length} arguments misrounded`,
  );
});

test('pow: correctly rounded on every argument', (t) => {
  let v8Wrong = 0;
  for (const [x, y, expected] of FIXTURE.pow) {
    assert.equal(correctlyRoundedPow(fromHex(x), fromHex(y)), fromHex(expected), `${x} ** ${y}`);
    if (fromHex(x) ** fromHex(y) !== fromHex(expected)) v8Wrong++;
  }
  t.diagnostic(`** on Node ${process.version}: ${v8Wrong} of ${FIXTURE.pow.length} arguments misrounded`);
});

test('special arguments are as Math.log and ** give them', () => {
  for (const x of [0, -1, Number.NaN, Number.POSITIVE_INFINITY])
    assert.deepEqual(correctlyRoundedLog(x), Math.log(x));
  assert.equal(correctlyRoundedLog(1), 0);
  assert.equal(correctlyRoundedLog(Number.MIN_VALUE), Math.log(Number.MIN_VALUE));
  assert.equal(correctlyRoundedPow(16, 0), 1);
  assert.equal(correctlyRoundedPow(16, 1), 16);
  assert.equal(correctlyRoundedPow(16, 0.5), 4);
  assert.equal(correctlyRoundedPow(2, 10), 1024);
  assert.equal(correctlyRoundedPow(0.5, 2), 0.25);
  assert.equal(correctlyRoundedPow(10, 400), Number.POSITIVE_INFINITY);
});
