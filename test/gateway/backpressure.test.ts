// A slow client slows the upstream read instead of growing the gateway's memory: while the client reads
// nothing, the upstream can only push what the socket buffers on the way hold (a few MB on loopback), not the
// whole 64 MB answer; once the client reads again, every byte arrives.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { startGateway, type TestGateway } from './helpers/gateway.js';
import { chatChunk, startUpstream, type TestUpstream } from './helpers/upstream.js';

const TOTAL_BYTES = 64 * 1024 * 1024;
// Loopback socket buffers (upstream->gateway and gateway->client, send and receive, auto-tuned by Linux up to a
// few MB each) plus Node's stream buffers: well under 24 MB. Without backpressure the upstream would push all 64.
const STALLED_LIMIT_BYTES = 24 * 1024 * 1024;
let upstream: TestUpstream;
let gateway: TestGateway;
let pushed = 0;

before(async () => {
  const event = Buffer.from(chatChunk({ content: 'x'.repeat(8000) }));
  upstream = await startUpstream(async (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    while (pushed < TOTAL_BYTES && !res.destroyed) {
      pushed += event.length;
      if (!res.write(event)) await once(res, 'drain');
    }
    res.end(`${chatChunk({}, 'stop')}data: [DONE]\n\n`);
  });
  gateway = await startGateway({ upstreams: [{ name: 'fast', baseUrl: upstream.url, keyless: true }] });
});
after(async () => {
  await gateway.close();
  await upstream.close();
});

test('a stalled client holds the upstream back; resuming delivers every byte', async (t) => {
  const response = await request(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"model":"m","stream":true}',
    highWaterMark: 64 * 1024,
  });
  // Let the upstream push as much as it can while nobody reads; wait until its progress stops.
  let last = -1;
  while (pushed !== last) {
    last = pushed;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  t.diagnostic(`upstream pushed ${(pushed / 1048576).toFixed(1)} MB of 64 MB while the client read nothing`);
  assert.ok(pushed < STALLED_LIMIT_BYTES, `upstream pushed ${pushed} bytes into a stalled client`);
  let received = 0;
  for await (const chunk of response.body) received += (chunk as Buffer).length;
  assert.ok(received >= TOTAL_BYTES, `received ${received}`);
  const [record] = await gateway.recordsAfter(1);
  assert.equal(record?.outcome, 'ok');
});
