// The key scrubber on its own: whole keys are replaced wherever they are, a key split by the chunking at any byte
// is still replaced and no byte of it goes out first, and bytes without a key come out identical (only regrouped).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KeyScrubber, MIN_SCRUBBED_KEY_BYTES, REDACTED } from '../../src/gateway/exchange/key-scrubber.js';
import { chatChunk } from './helpers/upstream.js';

const KEY = 'sk-proj-Zq81kLm0PpXv3NdT7yRa';
const OTHER = 'key-two-77c1a9e0b3';
const scrubber = new KeyScrubber([KEY, OTHER]);

/** Pushes the chunks through one response's stream: what went out after each push, and at the end. */
function run(chunks: readonly Buffer[]): { outs: Buffer[]; all: Buffer } {
  const stream = scrubber.stream();
  const outs = chunks.map((c) => stream.push(c));
  const rest = stream.flush();
  if (rest !== null) outs.push(rest);
  return { outs, all: Buffer.concat(outs) };
}

test('every whole key is replaced, in text and in bytes, its Bearer form included', () => {
  const text = `{"error":"invalid Authorization 'Bearer ${KEY}'","also":"${OTHER}${KEY}"}`;
  const expected = `{"error":"invalid Authorization 'Bearer ${REDACTED}'","also":"${REDACTED}${REDACTED}"}`;
  assert.equal(scrubber.scrubText(text), expected);
  assert.equal(scrubber.scrubBytes(Buffer.from(text)).toString(), expected);
});

test("a text cut to a bound inside a key loses the key's start too", () => {
  const cut = `message: Bearer ${KEY.slice(0, 11)}`;
  assert.equal(scrubber.scrubText(cut, true), `message: Bearer ${REDACTED}`);
  assert.equal(scrubber.scrubText(cut), cut, 'an uncut text ends with the start of a key, not with a key');
});

test('bytes without a key come back as the same buffer, untouched', () => {
  const bytes = Buffer.from(chatChunk({ content: 'sk-proj- is how a key starts' }));
  assert.equal(scrubber.scrubBytes(bytes), bytes);
});

test('a key that contains another is replaced whole', () => {
  const inner = new KeyScrubber(['abcdefgh', 'xxabcdefghyy']);
  assert.equal(inner.scrubText('1 xxabcdefghyy 2 abcdefgh'), `1 ${REDACTED} 2 ${REDACTED}`);
});

test('a key split across two chunks at any byte is replaced, and no byte of it goes out before the rest', () => {
  const body = Buffer.from(`{"error":{"message":"Incorrect API key provided: ${KEY}. Check it."}}`);
  const start = body.indexOf(KEY);
  for (let at = 1; at < body.length; at++) {
    const { outs, all } = run([body.subarray(0, at), body.subarray(at)]);
    assert.equal(all.toString(), body.toString().replace(KEY, REDACTED), `split at ${at}`);
    // What went out after the first chunk holds, where the key starts, nothing or the redaction: not even the
    // key's first byte left early.
    const first = (outs[0] as Buffer).toString();
    assert.ok(first.length <= start || first.startsWith(REDACTED, start), `split at ${at}: ${first}`);
  }
});

test('a key split across three chunks is replaced too', () => {
  const body = Buffer.from(`Bearer ${KEY}\n`);
  for (let i = 1; i < body.length - 1; i++) {
    for (let j = i + 1; j < body.length; j++) {
      const { all } = run([body.subarray(0, i), body.subarray(i, j), body.subarray(j)]);
      assert.equal(all.toString(), `Bearer ${REDACTED}\n`, `splits at ${i} and ${j}`);
    }
  }
});

test('a stream without a key comes out byte-identical at every split, even with key-like tails', () => {
  // Starts of both keys, cut short, inside ordinary text: each is held back at some split, then let go.
  const body = Buffer.from(
    `${chatChunk({ content: 'sk-proj-Zq8 and key-two-77 and héllo 🌍' })}${chatChunk({}, 'stop')}data: [DONE]\n\n`,
  );
  for (let at = 0; at <= body.length; at++) {
    const { all } = run([body.subarray(0, at), body.subarray(at)]);
    assert.ok(all.equals(body), `split at ${at}`);
  }
});

test('an SSE chunk, which ends with a line break, is never held back', () => {
  const chunk = Buffer.from(chatChunk({ content: 'sk-' }));
  assert.equal(scrubber.keyStartAtEnd(chunk), 0);
  assert.equal(scrubber.stream().push(chunk), chunk);
});

test('a body that ends with the start of a key passes it on: a start is not the key', () => {
  const { all } = run([Buffer.from('masked: sk-proj-Zq81')]);
  assert.equal(all.toString(), 'masked: sk-proj-Zq81');
});

test('keys too short to tell from ordinary text are not scrubbed, and the gateway says so', () => {
  const short = 'EMPTY';
  assert.ok(Buffer.byteLength(short) < MIN_SCRUBBED_KEY_BYTES);
  const { scrubber: none, warnings } = KeyScrubber.forUpstreams([
    { name: 'local', key: short },
    { name: 'open', key: null },
  ]);
  assert.equal(none.active, false);
  assert.equal(none.scrubText('EMPTY stays'), 'EMPTY stays');
  assert.equal(warnings.length, 1);
  assert.match(warnings[0] ?? '', /upstream 'local'.*not redacted/);
});

test('a key with characters JSON and URLs escape is also found in its JSON-escaped and percent-encoded forms', () => {
  const odd = 'tok"en\\with/+=chars';
  const oddScrubber = new KeyScrubber([odd]);
  const escaped = JSON.stringify({ echoed: odd });
  assert.equal(oddScrubber.scrubText(escaped), `{"echoed":"${REDACTED}"}`);
  assert.equal(oddScrubber.scrubText(`?k=${encodeURIComponent(odd)}&x=1`), `?k=${REDACTED}&x=1`);
  assert.equal(oddScrubber.scrubText(`raw ${odd}`), `raw ${REDACTED}`);
});

test('headers: a key in a value is replaced, in every value of a list; a header named after a key is dropped', () => {
  const headers = scrubber.scrubHeaders({
    'www-authenticate': `Bearer token="${KEY}"`,
    'set-cookie': [`a=${OTHER}`, 'b=1'],
    [`x-${KEY}`]: '1',
    'content-length': 12,
    plain: 'untouched',
  });
  assert.deepEqual(headers, {
    'www-authenticate': `Bearer token="${REDACTED}"`,
    'set-cookie': [`a=${REDACTED}`, 'b=1'],
    'content-length': 12,
    plain: 'untouched',
  });
});

// Issue 30 item 3: every spelling a JSON string allows, matched without listing them (KeySpelling).
const SLASHED = 'sk-proj-Ab3d/Ef6hIj9+kLm2nOp5';
const slashed = new KeyScrubber([SLASHED]);
const u = (c: string, upper = false): string => {
  const hex = c.charCodeAt(0).toString(16).padStart(4, '0');
  return `\\u${upper ? hex.toUpperCase() : hex}`;
};

test('a key is found in every JSON spelling: \\/, any character as \\uXXXX in either case, mixed', () => {
  const spellings = [
    SLASHED.replaceAll('/', '\\/'),
    [...SLASHED].map((c) => u(c)).join(''),
    [...SLASHED].map((c) => u(c, true)).join(''),
    // Each character escaped alone, in turn.
    ...[...SLASHED].map((_, i) => [...SLASHED].map((c, j) => (i === j ? u(c, i % 2 === 0) : c)).join('')),
    [...SLASHED].map((c, i) => (c === '/' ? '\\/' : i % 2 === 0 ? u(c, i % 4 === 0) : c)).join(''),
  ];
  for (const spelled of spellings) {
    const text = `{"error":"bad key: Bearer ${spelled}, check it"}`;
    const expected = `{"error":"bad key: Bearer ${REDACTED}, check it"}`;
    assert.equal(slashed.scrubBytes(Buffer.from(text)).toString(), expected, spelled);
    assert.equal(slashed.scrubText(text), expected, spelled);
  }
});

test('an escaped backslash before u is not an escape, and escapes of other text are left alone', () => {
  // `\\u0073k-...` is a backslash and the text `u0073k-...`: not the key.
  const notKey = `"${'\\\\'}u0073${SLASHED.slice(1)}"`;
  assert.equal(slashed.scrubBytes(Buffer.from(notKey)).toString(), notKey);
  const escapes = Buffer.from('{"content":"line\\nnext \\"quoted\\" caf\\u00e9 \\/path sk-proj-Ab3d\\/E"}');
  assert.equal(slashed.scrubBytes(escapes), escapes, 'no key: the same buffer');
});

test('a spelled key split across two chunks at any byte is replaced, and none of it goes out before the rest', () => {
  const spelled = [...SLASHED]
    .map((c, i) => (c === '/' ? '\\/' : i % 3 === 0 ? u(c, i % 2 === 0) : c))
    .join('');
  const body = Buffer.from(`{"error":{"message":"Incorrect API key provided: ${spelled}. Check it."}}`);
  const start = body.indexOf(spelled);
  for (let at = 1; at < body.length; at++) {
    const stream = slashed.stream();
    const first = stream.push(body.subarray(0, at));
    const all = Buffer.concat([first, stream.push(body.subarray(at)), stream.flush() ?? Buffer.alloc(0)]);
    assert.equal(all.toString(), body.toString().replace(spelled, REDACTED), `split at ${at}`);
    assert.ok(
      first.length <= start || first.toString().startsWith(REDACTED, start),
      `split at ${at}: ${first.toString()}`,
    );
  }
});

test('a body with escapes and no key comes out byte-identical at every split', () => {
  const body = Buffer.from(
    `${chatChunk({ content: 'sk-proj-Ab3d/Ef and caf\u00e9\n "x" \\u0041' })}`.replace('/', '\\/') +
      `data: {"x":"${u('s')}${u('k', true)}-proj"}\n\n`,
  );
  for (let at = 0; at <= body.length; at++) {
    const stream = slashed.stream();
    const all = Buffer.concat([
      stream.push(body.subarray(0, at)),
      stream.push(body.subarray(at)),
      stream.flush() ?? Buffer.alloc(0),
    ]);
    assert.ok(all.equals(body), `split at ${at}`);
  }
});
