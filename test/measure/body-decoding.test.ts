// How a Content-Encoding value is read: the codings to undo, last applied first (RFC 9110 8.4), `identity` and
// empty entries ignored, a header sent twice read as one list; anything that cannot be decoded is refused with an
// error that names only a registered coding (the value is the upstream's to choose, and could be a key).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bodyDecoding, UNDECODABLE_ENCODING_CODE, ZSTD_DECODABLE } from '../../src/measure/body-decoding.js';

function codings(value: string | string[] | undefined): readonly string[] | string {
  const decoding = bodyDecoding(value);
  return 'codings' in decoding ? decoding.codings : decoding.undecodable.message;
}

test('stacked, repeated and identity codings: undone last applied first', () => {
  assert.deepEqual(codings(undefined), []);
  assert.deepEqual(codings('identity'), []);
  assert.deepEqual(codings(' Identity , ,'), []);
  assert.deepEqual(codings('gzip'), ['gzip']);
  assert.deepEqual(codings('X-GZIP'), ['gzip']);
  assert.deepEqual(codings('gzip, gzip'), ['gzip', 'gzip']);
  assert.deepEqual(codings(['gzip', 'gzip']), ['gzip', 'gzip']);
  assert.deepEqual(codings('identity, gzip'), ['gzip']);
  // deflate was applied first, then br: br comes off first.
  assert.deepEqual(codings('deflate, br'), ['br', 'deflate']);
  assert.deepEqual(codings(['deflate', 'identity, br']), ['br', 'deflate']);
});

test('zstd is decoded where this Node has a decoder, refused with a reason where it has none', () => {
  if (ZSTD_DECODABLE) assert.deepEqual(codings('zstd'), ['zstd']);
  else assert.match(String(codings('zstd')), /Content-Encoding 'zstd'.*has no zstd decoder/);
});

test('what cannot be decoded is refused, naming only a registered coding', () => {
  const refused = bodyDecoding('gzip, compress');
  assert.ok('undecodable' in refused);
  assert.equal(refused.undecodable.code, UNDECODABLE_ENCODING_CODE);
  assert.match(refused.undecodable.message, /Content-Encoding 'compress' the gateway cannot decode/);
  const secret = 'sk-live-0123456789abcdef';
  const unknown = codings(`gzip, ${secret}`);
  assert.equal(typeof unknown, 'string');
  assert.ok(!String(unknown).toLowerCase().includes(secret), String(unknown));
  assert.match(String(unknown), /a Content-Encoding the gateway cannot decode/);
});
