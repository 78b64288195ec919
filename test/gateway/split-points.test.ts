// A recorded stream, cut into two TCP writes at every possible byte position (mid-line, mid-UTF-8 character,
// between \r and \n): the client always receives exactly what a direct call gives (the injected usage chunk
// removed), and the record is always the same.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { startGateway, type TestGateway } from './helpers/gateway.js';
import { chatChunk, startUpstream, type TestUpstream, usageChunk } from './helpers/upstream.js';

// CRLF line ends, a comment ping, a role-only delta, multi-byte text, and the usage chunk sharing a write with [DONE].
const WITH_USAGE = [
  ': ping\r\n\r\n',
  chatChunk({ role: 'assistant', content: '' }).replace(/\n/g, '\r\n'),
  chatChunk({ content: 'héllo ' }),
  chatChunk({ content: '世界 🌍' }),
  chatChunk({}, 'stop'),
  usageChunk(4, 5),
  'data: [DONE]\n\n',
].join('');
const WITHOUT_USAGE = WITH_USAGE.replace(usageChunk(4, 5), '');

let upstream: TestUpstream;
let gateway: TestGateway;

before(async () => {
  upstream = await startUpstream((req, res) => {
    const bytes = Buffer.from(WITH_USAGE);
    const at = Number(req.headers['x-split']);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(bytes.subarray(0, at));
    setImmediate(() => res.end(bytes.subarray(at)));
  });
  gateway = await startGateway({ upstreams: [{ name: 'u', baseUrl: upstream.url, keyless: true }] });
});
after(async () => {
  await gateway.close();
  await upstream.close();
});

test('every split point gives the same bytes to the client and the same record', async () => {
  const total = Buffer.byteLength(WITH_USAGE);
  const expected = Buffer.from(WITHOUT_USAGE);
  for (let at = 1; at < total; at++) {
    const response = await request(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-split': String(at) },
      body: '{"model":"m","stream":true}',
    });
    const bytes = Buffer.from(await response.body.arrayBuffer());
    assert.deepEqual(bytes, expected, `split at ${at}`);
  }
  const records = await gateway.recordsAfter(total - 1);
  for (const record of records) {
    assert.equal(record.outcome, 'ok');
    assert.equal(record.contentChunks, 2);
    assert.equal(record.outputTokens, 5);
    assert.equal(record.outputTokensSource, 'usage');
    assert.equal(record.finishReason, 'stop');
  }
});
