// Fault row (issue 30 item 3): the upstream echoes the gateway's upstream key in another spelling JSON allows: `/`
// as `\/` (PHP's json_encode default), every character as `\uXXXX` (hex in either case), or the two mixed, in a
// 401 body, in a non-streamed 200 and in an error event of a 200 stream split inside an escape. The client gets
// the status and the rest of the text, and no spelling of the key reaches the client, the record, the records
// file or the log; one record per request (accounting.ts). Before the scrubber read escapes, all of them leaked.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { REDACTED } from '../../src/gateway/exchange/key-scrubber.js';
import { startGateway, type TestGateway } from '../gateway/helpers/gateway.js';
import { chatChunk, startUpstream, type TestUpstream } from '../gateway/helpers/upstream.js';
import { closeAndAccount } from './accounting.js';

/** A key with a `/` in it, as some providers issue. */
const KEY = 'sk-proj-Ab3dEf/6hIj9kLm2+nOp5qRs8tUv/Wx1';

const unicode = (c: string, upper: boolean): string => {
  const hex = c.charCodeAt(0).toString(16).padStart(4, '0');
  return `\\u${upper ? hex.toUpperCase() : hex}`;
};
/** Every spelling the rows use, by name. */
const SPELLINGS: Readonly<Record<string, string>> = {
  php: KEY.replaceAll('/', '\\/'),
  'unicode-lower': [...KEY].map((c) => unicode(c, false)).join(''),
  'unicode-upper': [...KEY].map((c) => unicode(c, true)).join(''),
  // Raw, `\/`, and \u in both cases, in turn.
  mixed: [...KEY].map((c, i) => (c === '/' ? '\\/' : i % 3 === 1 ? unicode(c, i % 2 === 0) : c)).join(''),
};

/** The text with JSON's escapes decoded wherever they are: what a JSON reader of it would see. */
function decoded(text: string): string {
  return text
    .replace(/\\u([0-9a-fA-F]{4})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
    .replaceAll('\\/', '/');
}

function errorJson(spelled: string): string {
  return `{"error":{"message":"Incorrect API key provided: Bearer ${spelled}","type":"invalid_request_error"}}`;
}

let upstream: TestUpstream;
let gateway: TestGateway;
let dir: string;
let sent = 0;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tokenmeter-key-spellings-'));
  upstream = await startUpstream((req, res) => {
    const [kind, spelling] = String(req.headers['x-fault']).split(':') as [string, string];
    const spelled = SPELLINGS[spelling] ?? '';
    if (kind === '401') {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(errorJson(spelled));
    } else if (kind === 'plain-200') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        `{"choices":[{"message":{"content":"your key is ${spelled}"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":5}}`,
      );
    } else {
      // A 200 stream whose error event quotes the key, written in two parts cut inside the spelling's first
      // escape, so the scrubber meets it across two chunks.
      const body = `${chatChunk({ content: 'hi' })}data: ${errorJson(spelled)}\n\n`;
      const cut = body.indexOf(spelled) + spelled.indexOf('\\') + 3;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(body.slice(0, cut));
      setTimeout(() => res.end(body.slice(cut)), 20);
    }
  });
  gateway = await startGateway(
    {
      upstreams: [{ name: 'hosted', baseUrl: upstream.url, keyEnv: 'SPELLED_KEY' }],
      records: { file: join(dir, 'records.jsonl') },
    },
    { SPELLED_KEY: KEY },
  );
});
after(async () => {
  await upstream.close();
  await rm(dir, { recursive: true, force: true });
});

async function send(fault: string, stream: boolean): Promise<{ status: number; body: string }> {
  sent++;
  const response = await request(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-fault': fault },
    body: JSON.stringify({
      model: 'm',
      stream,
      ...(stream ? { stream_options: { include_usage: true } } : {}),
    }),
  });
  return { status: response.statusCode, body: await response.body.text() };
}

for (const spelling of Object.keys(SPELLINGS)) {
  test(`the key spelled ${spelling}: redacted in a 401, a plain 200 and a stream's error event`, async () => {
    for (const [kind, stream, status, outcome, shown] of [
      ['401', false, 401, 'http_error', /Incorrect API key provided: Bearer \[redacted\]"/],
      ['plain-200', false, 200, 'ok', /"your key is \[redacted\]"/],
      ['event-200', true, 200, 'upstream_error_body', /Incorrect API key provided: Bearer \[redacted\]"/],
    ] as const) {
      const got = await send(`${kind}:${spelling}`, stream);
      assert.equal(got.status, status, kind);
      assert.match(got.body, shown, `${kind}: ${got.body}`);
      assert.ok(!decoded(got.body).includes(KEY), `${kind}: the client got the key: ${got.body}`);
      const [record] = (await gateway.recordsAfter(sent)).slice(sent - 1);
      assert.equal(record?.outcome, outcome, kind);
      assert.ok(!decoded(JSON.stringify(record)).includes(KEY), `${kind}: the record holds the key`);
      if (kind !== 'plain-200')
        assert.ok(record?.error?.includes(`Bearer ${REDACTED}`), String(record?.error));
    }
  });
}

test('no spelling of the key in the records file or the log; one record per request', async () => {
  await closeAndAccount(gateway, sent);
  const file = await readFile(join(dir, 'records.jsonl'), 'utf8');
  assert.equal(file.trim().split('\n').length, sent);
  assert.ok(!decoded(file).includes(KEY), 'the records file holds the key');
  assert.ok(!decoded(gateway.logs.join('\n')).includes(KEY), 'the log holds the key');
});
