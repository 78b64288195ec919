// An upstream 401, 404 or 422 gets, in its record and its log line, the same hint `tokenmeter doctor` prints for
// that status (hintForUpstreamStatus), each from the simulator configured to fail that way.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { hintForUpstreamStatus } from '../../src/shared/upstream-hints.js';
import { startSimulator } from '../../src/sim/index.js';
import { startGateway, type TestGateway } from './helpers/gateway.js';
import { startUpstream } from './helpers/upstream.js';

const MODEL = 'tokenmeter/sim-7b';
type Sim = Awaited<ReturnType<typeof startSimulator>>;
let sim: Sim;
let gateway: TestGateway;

before(async () => {
  // The simulator wants 'right-key'; the gateway's upstream key variable holds another one.
  sim = await startSimulator({ apiKey: 'right-key' });
  gateway = await startGateway(
    { upstreams: [{ name: 'sim', baseUrl: `${sim.url}/v1`, keyEnv: 'SIM_API_KEY' }] },
    { SIM_API_KEY: 'wrong-key' },
  );
});
after(async () => {
  await gateway.close();
  await sim.close();
});

async function expectHint(
  gw: TestGateway,
  path: string,
  body: object,
  status: number,
  context: Parameters<typeof hintForUpstreamStatus>[1],
): Promise<void> {
  const count = gw.records.length;
  const id = `hint-${status}-${count}`;
  const response = await request(`${gw.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-request-id': id },
    body: JSON.stringify(body),
  });
  await response.body.text();
  assert.equal(response.statusCode, status, 'the upstream status reaches the client unchanged');
  const record = (await gw.recordsAfter(count + 1)).find((r) => r.requestId === id);
  const expected = hintForUpstreamStatus(status, context);
  assert.ok(expected, `the doctor has a hint for ${status}`);
  assert.equal(record?.outcome, 'http_error');
  assert.equal(record?.hint, expected);
  const line = gw.logs
    .map((l) => JSON.parse(l) as { requestId?: string; msg?: string; hint?: string })
    .find((l) => l.requestId === id && l.msg === 'request finished');
  assert.equal(line?.hint, expected, 'the log line carries the same hint');
}

test('401 (the upstream rejects the key): the hint names the key variable', async () => {
  await expectHint(
    gateway,
    '/v1/chat/completions',
    { model: MODEL, max_tokens: 2, messages: [{ role: 'user', content: 'hi' }] },
    401,
    { path: '/v1/chat/completions', model: MODEL, keySource: 'SIM_API_KEY' },
  );
});

test('404 (a model the upstream does not serve) and 422 (a completions body on the chat path)', async (t) => {
  const open = await startSimulator();
  t.after(() => open.close());
  const gw = await startGateway({ upstreams: [{ name: 'open', baseUrl: open.url, keyless: true }] });
  t.after(() => gw.close());
  await expectHint(
    gw,
    '/v1/chat/completions',
    { model: 'no-such-model', max_tokens: 2, messages: [{ role: 'user', content: 'hi' }] },
    404,
    // The simulator's body says model_not_found, which the hint reads to name the model rather than the path.
    { path: '/v1/chat/completions', model: 'no-such-model', errorText: 'model_not_found' },
  );
  await expectHint(gw, '/v1/chat/completions', { model: MODEL, max_tokens: 2, prompt: 'hi' }, 422, {
    path: '/v1/chat/completions',
    model: MODEL,
  });
});

test('401 for a key read from a file: the hint names the file, not "none was sent"', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'tokenmeter-hint-'));
  const keyFile = join(dir, 'upstream.key');
  await writeFile(keyFile, 'wrong-key-from-file\n');
  const fromFile = await startGateway({ upstreams: [{ name: 'sim', baseUrl: `${sim.url}/v1`, keyFile }] });
  t.after(async () => {
    await fromFile.close();
    await rm(dir, { recursive: true, force: true });
  });
  const chat = { model: MODEL, max_tokens: 2, messages: [{ role: 'user', content: 'hi' }] };
  const keySource = `the key file ${keyFile}`;
  await expectHint(fromFile, '/v1/chat/completions', chat, 401, {
    path: '/v1/chat/completions',
    model: MODEL,
    keySource,
  });
  assert.match(hintForUpstreamStatus(401, { keySource }) ?? '', /refused the key that was sent/);
});

test('401 from a keyless upstream: the hint says to set a key, in the header the endpoint takes', async (t) => {
  const keyless = await startGateway({
    upstreams: [{ name: 'sim', baseUrl: `${sim.url}/v1`, keyless: true }],
  });
  t.after(() => keyless.close());
  const chat = { model: MODEL, max_tokens: 2, messages: [{ role: 'user', content: 'hi' }] };
  await expectHint(keyless, '/v1/chat/completions', chat, 401, {
    path: '/v1/chat/completions',
    model: MODEL,
    keyHeader: 'authorization: Bearer <key>',
  });
  await expectHint(keyless, '/v1/messages', chat, 401, {
    path: '/v1/messages',
    model: MODEL,
    keyHeader: 'x-api-key: <key>',
  });
});

test("401 from a keyless upstream on /v1/messages/count_tokens: the hint names x-api-key, the family's header", async (t) => {
  // Claude Code calls count_tokens; the gateway sends it with Anthropic's x-api-key, so the hint must say so too
  // (a hint guessed from the path's end named a bearer token here).
  const refusing = await startUpstream((_req, res) => {
    res.writeHead(401, { 'content-type': 'application/json' });
    res.end(
      '{"type":"error","error":{"type":"authentication_error","message":"x-api-key header is required"}}',
    );
  });
  t.after(() => refusing.close());
  const keyless = await startGateway({
    upstreams: [{ name: 'anthropic', baseUrl: refusing.url, keyless: true }],
  });
  t.after(() => keyless.close());
  const count = keyless.records.length;
  const response = await request(`${keyless.url}/v1/messages/count_tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-request-id': 'count-tokens-401' },
    body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }),
  });
  await response.body.text();
  assert.equal(response.statusCode, 401);
  assert.equal(
    refusing.requests[0]?.headers['anthropic-version'],
    '2023-06-01',
    'sent as Anthropic Messages',
  );
  const record = (await keyless.recordsAfter(count + 1)).find((r) => r.requestId === 'count-tokens-401');
  assert.equal(record?.outcome, 'http_error');
  assert.match(record?.hint ?? '', /none was sent: .*sent as "x-api-key: <key>"/);
  assert.equal(record?.protocol, null, 'count_tokens is not timed');
});

test('400 for a context the request does not fit: the hint says to lower max_tokens or raise the context', async (t) => {
  const keyed = await startGateway(
    { upstreams: [{ name: 'sim', baseUrl: `${sim.url}/v1`, keyEnv: 'SIM_API_KEY' }] },
    { SIM_API_KEY: 'right-key' },
  );
  t.after(() => keyed.close());
  const tooLong = { model: MODEL, max_tokens: 100_000, messages: [{ role: 'user', content: 'hi' }] };
  const count = keyed.records.length;
  const response = await request(`${keyed.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(tooLong),
  });
  const text = await response.body.text();
  assert.equal(response.statusCode, 400);
  assert.match(text, /maximum context length/);
  const [record] = (await keyed.recordsAfter(count + 1)).slice(count);
  assert.equal(record?.outcome, 'http_error');
  assert.match(record?.hint ?? '', /lower max_tokens .* --max-model-len/);
  assert.equal(
    hintForUpstreamStatus(400, { errorText: 'invalid temperature' }),
    undefined,
    'other 400s: no guess',
  );
});
