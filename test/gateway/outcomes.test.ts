// Every outcome, each from an upstream that misbehaves on cue, with exactly one record per request and a
// gateway error (when the gateway answers) in OpenAI's format with a message that says what to do.
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { startGateway, type TestGateway } from './helpers/gateway.js';
import { chatChunk, sendShortChatStream, startUpstream, type TestUpstream } from './helpers/upstream.js';

let upstream: TestUpstream;

before(async () => {
  upstream = await startUpstream((req, res) => {
    const scenario = req.headers['x-scenario'];
    switch (scenario) {
      case 'http-error':
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '3' });
        res.end('{"error":{"message":"slow down","type":"rate_limit","code":429}}');
        return;
      case 'error-in-200-stream':
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`data: {"error":{"message":"model overloaded","code":503}}\n\ndata: [DONE]\n\n`);
        return;
      case 'error-in-200-json':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"object":"error","message":"context too long","code":400}');
        return;
      case 'cut':
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(chatChunk({ content: 'half' }));
        setTimeout(() => res.socket?.destroy(), 20);
        return;
      case 'no-finish':
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(chatChunk({ content: 'half' }));
        return;
      case 'slow-headers':
        setTimeout(() => {
          if (!res.destroyed) res.end('{}');
        }, 2000);
        return;
      case 'stall':
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(chatChunk({ content: 'first' }));
        return; // never another byte
      default:
        sendShortChatStream(res);
    }
  });
});
after(() => upstream.close());

async function call(gateway: TestGateway, scenario: string, extra: Record<string, string> = {}) {
  const before = gateway.records.length;
  const response = await request(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-scenario': scenario, ...extra },
    body: '{"model":"m","stream":true}',
  });
  let text = '';
  let cut = false;
  try {
    text = await response.body.text();
  } catch {
    cut = true;
  }
  const record = (await gateway.recordsAfter(before + 1)).at(-1);
  return { status: response.statusCode, text, cut, record };
}

async function gatewayFor(
  t: { after: (fn: () => Promise<void>) => void },
  timeouts = {},
): Promise<TestGateway> {
  const gateway = await startGateway({
    upstreams: [{ name: 'sim', baseUrl: upstream.url, keyless: true, timeouts }],
  });
  t.after(() => gateway.close());
  return gateway;
}

test('ok, http_error (passed through unchanged), upstream_error_body (stream and JSON), truncated', async (t) => {
  const gateway = await gatewayFor(t);
  const ok = await call(gateway, 'ok');
  assert.equal(ok.record?.outcome, 'ok');
  assert.equal(ok.record?.finishReason, 'stop');

  const httpError = await call(gateway, 'http-error');
  assert.equal(httpError.status, 429);
  assert.equal(httpError.text, '{"error":{"message":"slow down","type":"rate_limit","code":429}}');
  assert.equal(httpError.record?.outcome, 'http_error');
  assert.equal(httpError.record?.status, 429);
  assert.match(httpError.record?.error ?? '', /slow down/);
  assert.match(httpError.record?.hint ?? '', /rate limited: lower the request rate/);

  const streamError = await call(gateway, 'error-in-200-stream');
  assert.equal(streamError.status, 200);
  assert.equal(streamError.record?.outcome, 'upstream_error_body');
  assert.equal(streamError.record?.error, 'model overloaded');

  const jsonError = await call(gateway, 'error-in-200-json');
  assert.equal(jsonError.record?.outcome, 'upstream_error_body');
  assert.equal(jsonError.record?.error, 'context too long');

  const cut = await call(gateway, 'cut');
  assert.equal(cut.cut, true, 'the client sees the cut too, not a clean end');
  assert.equal(cut.record?.outcome, 'truncated');
  assert.equal(cut.record?.contentChunks, 1);

  const noFinish = await call(gateway, 'no-finish');
  assert.equal(noFinish.record?.outcome, 'truncated');
  assert.match(noFinish.record?.error ?? '', /without a finish reason or \[DONE\]/);
  assert.equal(gateway.records.length, 6, 'exactly one record per request');
});

test('a refused connection is a 502 that names the upstream and says what to check', async (t) => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as { port: number }).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const gateway = await startGateway({
    upstreams: [{ name: 'vllm', baseUrl: `http://127.0.0.1:${port}/v1`, keyless: true }],
  });
  t.after(() => gateway.close());
  const response = await request(`${gateway.url}/v1/chat/completions`, { method: 'POST', body: '{}' });
  const body = (await response.body.json()) as { error: { message: string; type: string; code: string } };
  assert.equal(response.statusCode, 502);
  assert.deepEqual(body, {
    error: {
      message: `upstream 'vllm' at http://127.0.0.1:${port} refused the connection: is it running?`,
      type: 'upstream_error',
      param: null,
      code: 'upstream_refused',
    },
  });
  const [record] = await gateway.recordsAfter(1);
  assert.equal(record?.outcome, 'upstream_unreachable');
});

test('slow headers are a 504 upstream_timeout; a stall mid-stream cuts the stream as upstream_timeout', async (t) => {
  const gateway = await gatewayFor(t, { headersMs: 300, idleMs: 300 });
  const slow = await call(gateway, 'slow-headers');
  assert.equal(slow.status, 504);
  assert.match(slow.text, /"code":"upstream_headers_timeout"/);
  assert.equal(slow.record?.outcome, 'upstream_timeout');
  const stall = await call(gateway, 'stall');
  assert.equal(stall.status, 200);
  assert.equal(stall.cut, true);
  assert.equal(stall.record?.outcome, 'upstream_timeout');
  assert.match(stall.record?.error ?? '', /idleMs/);
});

test('the total timeout ends a request that keeps trickling', async (t) => {
  const gateway = await gatewayFor(t, { totalMs: 300 });
  const stall = await call(gateway, 'stall');
  assert.equal(stall.cut, true);
  assert.equal(stall.record?.outcome, 'upstream_timeout');
  assert.match(stall.record?.error ?? '', /totalMs/);
  const slow = await call(gateway, 'slow-headers');
  assert.equal(slow.status, 504);
  assert.match(slow.text, /"code":"upstream_total_timeout"/);
});
