// The body sent upstream (src/gateway/request-path/request-body.ts): usage asked for and the model renamed on the
// bytes, member by member, never by re-serializing the body; the upstream reads the same JSON value as the
// client's with those two changes. The awkward bodies (a stream_options to merge into, `model` spelled with
// escapes or sent twice, a model that is not a string, none at all) are edited like the rest, and a randomized
// corpus, fed to the scanner in random chunks as a socket delivers it, checks every path against JSON.parse.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BodyScanner } from '../../src/gateway/request-path/body-scan.js';
import {
  parseBody,
  parseBodyBytes,
  type UpstreamBody,
  upstreamBody,
} from '../../src/gateway/request-path/request-body.js';

function send(text: string, model: string, inject: boolean): UpstreamBody {
  return upstreamBody(parseBodyBytes(Buffer.from(text, 'utf8')), model, inject);
}

/** The body scanned in chunks cut at the given offsets, as a socket might deliver it. */
function sendInChunks(text: string, model: string, inject: boolean, cuts: readonly number[]): UpstreamBody {
  const raw = Buffer.from(text, 'utf8');
  const scanner = new BodyScanner();
  let from = 0;
  for (const cut of [...cuts, raw.length]) {
    scanner.push(raw.subarray(from, cut));
    from = cut;
  }
  return upstreamBody(parseBody(raw, scanner), model, inject);
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** What the upstream must read: the client's value with the model replaced and usage asked for. */
function expected(text: string, model: string, inject: boolean): unknown {
  const value = JSON.parse(text) as Record<string, unknown>;
  const out: Record<string, unknown> = { ...value };
  if (model !== '') out['model'] = model;
  const options = value['stream_options'];
  const asked = isObject(options) && options['include_usage'] === true;
  if (inject && value['stream'] === true && !asked) {
    const continuous = isObject(options) && options['continuous_usage_stats'] === true;
    out['stream_options'] = {
      ...(isObject(options) ? options : {}),
      include_usage: true,
      ...(continuous ? { continuous_usage_stats: false } : {}),
    };
  }
  return out;
}

test('usage is asked for on the bytes: the client bytes are kept and the member inserted before the last brace', () => {
  const text = '{"model":"m","stream":true,"messages":[{"role":"user","content":"a } b"}]}\n  ';
  const out = send(text, '', true);
  assert.equal(out.made, 'edited');
  assert.equal(out.usageInjected, true);
  const bytes = out.bytes.toString('utf8');
  assert.equal(bytes, `${text.slice(0, text.lastIndexOf('}'))},"stream_options":{"include_usage":true}}\n  `);
  assert.deepEqual(JSON.parse(bytes), expected(text, '', true));
});

test('the model is renamed on the bytes: only the top-level value changes, nested and quoted "model"s stay', () => {
  const text =
    '{ "messages" : [{"role":"user","content":"say \\"model\\": \\"x\\" {"}, {"model":"nested"}], "model" : "alias", "tools_hint":{"model":"inner"}, "n": 1 }';
  const out = send(text, 'real/model "q"', false);
  assert.equal(out.made, 'edited');
  assert.equal(out.usageInjected, false);
  const bytes = out.bytes.toString('utf8');
  assert.equal(bytes, text.replace('"model" : "alias"', '"model" : "real/model \\"q\\""'));
  assert.deepEqual(JSON.parse(bytes), expected(text, 'real/model "q"', false));
});

test('both edits together, and a body already asking for usage or already naming the model is sent as is', () => {
  const text = '{"model":"alias","stream":true}';
  const both = send(text, 'real', true);
  assert.equal(both.made, 'edited');
  assert.equal(
    both.bytes.toString(),
    '{"model":"real","stream":true,"stream_options":{"include_usage":true}}',
  );
  const asked = '{"model":"real","stream":true,"stream_options":{"include_usage":true}}';
  const same = send(asked, 'real', true);
  assert.equal(same.made, 'as_sent');
  assert.equal(same.bytes.toString(), asked);
  assert.equal(send('{"model":"m","stream":false}', '', true).made, 'as_sent');
});

test('the awkward bodies are edited too, to the same value with the changes', () => {
  const cases: [string, string, boolean][] = [
    // stream_options to merge into: its other members are kept.
    ['{"model":"m","stream":true,"stream_options":{"continuous_usage_stats":false}}', '', true],
    ['{"model":"m","stream":true,"stream_options":null}', '', true],
    // `model` spelled with an escape is still `model`.
    ['{"mod\\u0065l":"alias","stream":true}', 'real', false],
    // `model` twice: JSON.parse keeps the last, other parsers the first: both are replaced.
    ['{"model":"a","model":"alias"}', 'real', false],
    // A model that is not a string.
    ['{"model":7,"stream":true}', 'real', true],
    // No model at all: the rename adds one.
    ['{"stream":true,"prompt":"hi"}', 'real', false],
  ];
  for (const [text, model, inject] of cases) {
    const out = send(text, model, inject);
    assert.equal(out.made, 'edited', text);
    assert.deepEqual(JSON.parse(out.bytes.toString('utf8')), expected(text, model, inject), text);
  }
});

test('usage asked for on behalf of a client that sent continuous_usage_stats alone keeps it off, as vLLM reads it', () => {
  const out = send('{"model":"m","stream":true,"stream_options":{"continuous_usage_stats":true}}', '', true);
  assert.deepEqual(JSON.parse(out.bytes.toString()).stream_options, {
    continuous_usage_stats: false,
    include_usage: true,
  });
  const asked =
    '{"model":"m","stream":true,"stream_options":{"include_usage":true,"continuous_usage_stats":true}}';
  assert.equal(send(asked, '', true).made, 'as_sent');
});

test('a body that is not a JSON object goes as it came', () => {
  for (const text of ['[1,2]', 'not json', '"model"', '']) {
    const out = send(text, 'real', true);
    assert.equal(out.made, 'as_sent');
    assert.equal(out.bytes.toString(), text);
  }
});

/** A small seeded generator, so a failure names the seed that made it. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const PIECES = ['model', 'a', '"', '\\', '{', '}', '[', ']', ':', ',', ' ', 'é', '😀', '\n', '\u2028', 'x"y'];

function randomString(next: () => number): string {
  let out = '';
  const length = Math.floor(next() * 6);
  for (let i = 0; i < length; i++) out += PIECES[Math.floor(next() * PIECES.length)];
  return out;
}

function randomValue(next: () => number, depth: number): unknown {
  const kind = Math.floor(next() * (depth > 2 ? 4 : 6));
  if (kind === 0) return randomString(next);
  if (kind === 1) return Math.floor(next() * 1000) / 10;
  if (kind === 2) return next() < 0.5;
  if (kind === 3) return null;
  if (kind === 4) return Array.from({ length: Math.floor(next() * 3) }, () => randomValue(next, depth + 1));
  const object: Record<string, unknown> = {};
  for (let i = Math.floor(next() * 3); i > 0; i--) object[randomString(next)] = randomValue(next, depth + 1);
  return object;
}

/** JSON text with random whitespace between tokens, as clients format it. */
function spaced(text: string, next: () => number): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    out += char;
    if (inString) {
      if (char === '\\') out += text[++i];
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    else if ('{}[]:,'.includes(char) && next() < 0.3)
      out += [' ', '\n', '\t', '\r\n'][Math.floor(next() * 4)];
  }
  return out;
}

test('randomized bodies: the upstream reads the value JSON.parse expects, by either path', () => {
  const made = { as_sent: 0, edited: 0 };
  for (let seed = 1; seed <= 2000; seed++) {
    const next = generator(seed);
    const value: Record<string, unknown> = {};
    for (let i = Math.floor(next() * 4); i > 0; i--) value[randomString(next)] = randomValue(next, 1);
    if (next() < 0.8) value['model'] = next() < 0.8 ? randomString(next) : randomValue(next, 1);
    value['stream'] = next() < 0.8;
    if (next() < 0.2)
      value['stream_options'] = next() < 0.5 ? { include_usage: next() < 0.5 } : randomValue(next, 1);
    const entries = Object.entries(value).sort(() => next() - 0.5);
    const text = spaced(JSON.stringify(Object.fromEntries(entries)), next) + (next() < 0.3 ? ' \n' : '');
    const model = next() < 0.5 ? '' : randomString(next) || 'real';
    const inject = next() < 0.7;
    const out = send(text, model, inject);
    made[out.made]++;
    // Cut anywhere, inside an escape or a multi-byte character included: the same bytes go upstream.
    const length = Buffer.byteLength(text);
    const cuts = Array.from({ length: Math.floor(next() * 5) }, () => Math.floor(next() * length)).sort(
      (a, b) => a - b,
    );
    assert.deepEqual(
      sendInChunks(text, model, inject, cuts).bytes,
      out.bytes,
      `seed ${seed}, cut at ${cuts}`,
    );
    assert.deepEqual(
      JSON.parse(out.bytes.toString('utf8')),
      expected(text, model === '' || value['model'] === model ? '' : model, inject),
      `seed ${seed}: ${text} (model ${JSON.stringify(model)}, inject ${inject})`,
    );
  }
  // Both paths were taken, many times.
  assert.ok(made.edited > 200 && made.as_sent > 200, JSON.stringify(made));
});

test('what the scan calls not one object goes as it came, and what it reads equals JSON.parse', () => {
  const notObjects = [
    '{"a"}',
    '{"a":}',
    '{"a":1,}',
    '{,"a":1}',
    '{"a":1}}',
    '{"a":[1}]}',
    '{"a" "b"}',
    '{"a":1 "b":2}',
    '{"a":"unclosed}',
    '{"model":"m"} x',
    '[{"model":"m"}]',
    '"model"',
    '\uFEFF{"model":"m"}',
  ];
  for (const text of notObjects) {
    const parsed = parseBodyBytes(Buffer.from(text, 'utf8'));
    assert.equal(parsed.object, undefined, text);
    assert.equal(send(text, 'real', true).made, 'as_sent', text);
  }
  const body = parseBodyBytes(
    Buffer.from(
      '{"tools":[ ],"functions":null,"store":false,"stream":true,"stream_options":{"x":1},"model":"a","model":"b"}',
    ),
  ).object;
  assert.ok(body !== undefined);
  assert.deepEqual(
    {
      model: body.model,
      stream: body.stream,
      options: body.streamOptions,
      tools: body.offersTools,
      off: body.storeOff,
    },
    { model: 'b', stream: true, options: { x: 1 }, tools: false, off: true },
  );
  assert.equal(parseBodyBytes(Buffer.from('{"tools":[{}]}')).object?.offersTools, true);
  assert.equal(parseBodyBytes(Buffer.from('{"functions":{"a":1}}')).object?.offersTools, true);
});

test('a member the gateway reads is decoded up to 64 KiB; a longer one is refused, the rest never parsed', () => {
  const long = 'x'.repeat(64 * 1024);
  assert.equal(parseBodyBytes(Buffer.from(`{"model":"${long.slice(2)}"}`)).object?.model, long.slice(2));
  assert.throws(
    () => parseBodyBytes(Buffer.from(`{"model":"${long}"}`)),
    /the body's "model" is 65538 bytes long; the gateway reads at most 65536 bytes of it/,
  );
  // A member it does not read may be as long as the body bound allows.
  const big = `{"model":"m","messages":[{"role":"user","content":"${'y'.repeat(1_000_000)}"}]}`;
  assert.equal(parseBodyBytes(Buffer.from(big)).object?.model, 'm');
});
