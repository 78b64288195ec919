// vLLM's URL holes, closed: the chat backend picks its endpoint, /v1 is never doubled, a mismatch is named.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resolveTarget } from '../../loadgen/bench/target-url.js';

const local = { host: '127.0.0.1', port: 8000 };

test('--backend openai-chat picks /v1/chat/completions; openai and vllm pick /v1/completions', () => {
  assert.equal(
    resolveTarget({ ...local, backend: 'openai-chat' }).url,
    'http://127.0.0.1:8000/v1/chat/completions',
  );
  assert.equal(resolveTarget({ ...local, backend: 'vllm' }).url, 'http://127.0.0.1:8000/v1/completions');
  assert.equal(resolveTarget({ ...local }).backend, 'openai-chat', 'default backend');
  assert.equal(
    resolveTarget({ ...local, endpoint: '/v1/completions' }).backend,
    'openai',
    'backend from the endpoint',
  );
});

test('a base URL ending in /v1 (or carrying a prefix) never becomes /v1/v1', () => {
  const cases: Array<[string, string]> = [
    ['https://taotoken.net/api', 'https://taotoken.net/api/v1/chat/completions'],
    ['https://taotoken.net/api/v1', 'https://taotoken.net/api/v1/chat/completions'],
    ['https://taotoken.net/api/v1/', 'https://taotoken.net/api/v1/chat/completions'],
    ['http://127.0.0.1:8000/v1/chat/completions', 'http://127.0.0.1:8000/v1/chat/completions'],
  ];
  for (const [baseUrl, url] of cases) assert.equal(resolveTarget({ ...local, baseUrl }).url, url, baseUrl);
});

test('backend/endpoint mismatches are errors that name the fix', () => {
  assert.throws(
    () => resolveTarget({ ...local, backend: 'vllm', endpoint: '/v1/chat/completions' }),
    /--backend openai-chat/,
  );
  assert.throws(
    () => resolveTarget({ ...local, backend: 'openai-chat', endpoint: '/v1/completions' }),
    /not a chat endpoint/,
  );
  assert.throws(() => resolveTarget({ ...local, baseUrl: 'ftp://x' }), /not an http\(s\) URL/);
});
