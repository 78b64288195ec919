// Requests are routed by model: aliases pick an upstream and are renamed to its model ID, unlisted models go to
// the default upstream, unknown models (with no default) get a 404 listing the nearest names, and
// GET /v1/models answers the union of every upstream's models and the aliases.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { startSimulator } from '../../src/sim/index.js';
import { startGateway, type TestGateway } from './helpers/gateway.js';
import { startUpstream, type TestUpstream } from './helpers/upstream.js';

const LOCAL_ID = '/root/models/Qwen2.5-Coder-32B-Instruct-GPTQ-Int8';
let hosted: TestUpstream;
let sim: Awaited<ReturnType<typeof startSimulator>>;
let gateway: TestGateway;

before(async () => {
  hosted = await startUpstream((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    if (req.method === 'GET')
      res.end('{"object":"list","data":[{"id":"qwen-coder-hosted","object":"model","owned_by":"x"}]}');
    else res.end('{"choices":[]}');
  });
  sim = await startSimulator({ servedModelNames: [LOCAL_ID] });
  gateway = await startGateway({
    upstreams: [
      {
        name: 'local',
        baseUrl: `${sim.url}/v1`,
        keyless: true,
        models: [{ alias: 'coder', id: LOCAL_ID }, LOCAL_ID],
      },
      {
        name: 'hosted',
        baseUrl: `${hosted.url}/api`,
        keyless: true,
        models: [{ alias: 'coder-hosted', id: 'qwen-coder-hosted' }],
      },
    ],
  });
});
after(async () => {
  await gateway.close();
  await sim.close();
  await hosted.close();
});

async function chat(model: string) {
  const response = await request(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, max_tokens: 3, messages: [{ role: 'user', content: 'hi' }] }),
  });
  return { status: response.statusCode, body: (await response.body.json()) as Record<string, unknown> };
}

test('an alias reaches its upstream under the upstream model ID', async () => {
  const response = await request(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'coder',
      stream: true,
      max_tokens: 3,
      messages: [{ role: 'user', content: 'hi' }],
    }),
  });
  assert.equal(response.statusCode, 200);
  assert.ok((await response.body.text()).includes(`"model":"${LOCAL_ID}"`));
  const hostedAnswer = await chat('coder-hosted');
  assert.equal(hostedAnswer.status, 200);
  const sent = JSON.parse(hosted.requests.at(-1)?.body.toString() ?? '{}') as { model: string };
  assert.equal(sent.model, 'qwen-coder-hosted');
  const records = await gateway.recordsAfter(2);
  assert.equal(records[0]?.modelAsked, 'coder');
  assert.equal(records[0]?.modelSent, LOCAL_ID);
  assert.equal(records[1]?.upstream, 'hosted');
});

test('an unknown model gets a 404 naming the nearest known models', async () => {
  const unknown = await chat('codr');
  assert.equal(unknown.status, 404);
  const error = unknown.body['error'] as { message: string; code: string };
  assert.equal(error.code, 'model_not_found');
  assert.match(error.message, /model 'codr' is not served here: did you mean 'coder'/);
});

test('GET /v1/models lists every upstream model and alias once', async () => {
  const response = await request(`${gateway.url}/v1/models`);
  const body = (await response.body.json()) as { data: { id: string }[] };
  const ids = body.data.map((m) => m.id).sort();
  assert.deepEqual(ids, [
    '/root/models/Qwen2.5-Coder-32B-Instruct-GPTQ-Int8',
    'coder',
    'coder-hosted',
    'qwen-coder-hosted',
  ]);
});
