// The one Bearer reader (src/gateway/config/gateway-keys.ts) that gateway auth, the metrics page and span receiving use.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bearerToken } from '../../src/gateway/config/gateway-keys.js';

test('the token of a Bearer credential, whatever the scheme case and surrounding space; nothing else', () => {
  assert.equal(bearerToken('Bearer abc'), 'abc');
  assert.equal(bearerToken('bearer  abc '), 'abc');
  assert.equal(bearerToken(' BEARER abc'), 'abc');
  assert.equal(bearerToken(undefined), undefined);
  assert.equal(bearerToken(''), undefined);
  assert.equal(bearerToken('Bearer'), undefined);
  assert.equal(bearerToken('Basic dXNlcjpwYXNz'), undefined);
  assert.equal(bearerToken('Bearerabc'), undefined);
});
