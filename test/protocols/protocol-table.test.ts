// The protocol table: one folder and one frozen descriptor per protocol, unique endpoints and families.
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { BACKEND_SPECS, BACKENDS, backendProtocol, endpointFamily } from '../../src/protocols/backends.js';
import {
  BEARER_AUTH,
  keyHeader,
  keyHeaderShown,
  PROTOCOLS,
  protocolByEndpoint,
  protocolByFamily,
  protocolByName,
  upstreamAuthOf,
} from '../../src/protocols/index.js';

const PROTOCOLS_DIR = join(fileURLToPath(import.meta.url), '../../../src/protocols');

test('each protocol is registered under its own name', () => {
  assert.deepEqual(
    PROTOCOLS.map((p) => p.name),
    ['openai-chat', 'openai-completions', 'anthropic-messages', 'openai-responses'],
  );
  for (const protocol of PROTOCOLS) assert.equal(protocol.classifier.protocol, protocol.name);
  assert.equal(protocolByName('openai-chat').classifier.protocol, 'openai-chat');
  assert.equal(protocolByName('grpc'), undefined);
});

test('every protocol has its own folder, named after it, whose descriptor exports one frozen object', async () => {
  // Folders without a descriptor hold what several protocols share (openai-choices: chat and completions).
  const folders = readdirSync(PROTOCOLS_DIR, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(PROTOCOLS_DIR, entry.name, 'descriptor.js')))
    .map((entry) => entry.name);
  assert.deepEqual(folders.sort(), PROTOCOLS.map((p) => p.name).sort());
  for (const folder of folders) {
    const exported = Object.values(await import(join(PROTOCOLS_DIR, folder, 'descriptor.js')));
    assert.equal(exported.length, 1, `${folder}/descriptor.js exports one object`);
    assert.ok(PROTOCOLS.includes(exported[0] as never), `${folder}'s object is in PROTOCOLS`);
    assert.ok(Object.isFrozen(exported[0]), `${folder}'s object is frozen`);
    assert.equal((exported[0] as { name: string }).name, folder);
  }
});

test('endpoints and families are unique, and each endpoint is in its own family', () => {
  assert.equal(new Set(PROTOCOLS.map((p) => p.endpoint)).size, PROTOCOLS.length);
  assert.equal(new Set(PROTOCOLS.map((p) => p.family)).size, PROTOCOLS.length);
  for (const protocol of PROTOCOLS) {
    assert.equal(protocol.endpoint.split('/')[0], protocol.family);
    assert.equal(protocolByEndpoint(protocol.endpoint), protocol);
    assert.equal(protocolByFamily(protocol.endpoint), protocol);
  }
  assert.equal(protocolByEndpoint('models'), undefined);
  assert.equal(protocolByEndpoint('messages/count_tokens'), undefined, 'untimed, though in a family');
});

test('a family shares its auth: messages/count_tokens takes x-api-key and anthropic-version', () => {
  const authFor = (endpoint: string) => upstreamAuthOf(protocolByFamily(endpoint));
  const auth = authFor('messages/count_tokens');
  assert.equal(auth.keyHeader, 'x-api-key');
  assert.deepEqual(auth.versionHeader, { name: 'anthropic-version', value: '2023-06-01' });
  assert.equal(authFor('messages'), auth);
  for (const endpoint of ['chat/completions', 'completions', 'responses', 'models', 'embeddings']) {
    assert.deepEqual(authFor(endpoint), { keyHeader: 'authorization', versionHeader: null }, endpoint);
  }
});

test('keyHeader writes the key the way the auth says, and the hints show it with a placeholder', () => {
  const anthropic = upstreamAuthOf(protocolByFamily('messages'));
  assert.deepEqual(keyHeader(anthropic, 'k'), { name: 'x-api-key', value: 'k' });
  assert.deepEqual(keyHeader(BEARER_AUTH, 'k'), { name: 'authorization', value: 'Bearer k' });
  assert.equal(keyHeaderShown(anthropic), 'x-api-key: <key>');
  assert.equal(keyHeaderShown(BEARER_AUTH), 'authorization: Bearer <key>');
});

test('usage is asked for exactly where the stream carries it only on request', () => {
  const onRequest = PROTOCOLS.filter((p) => p.usageOnRequest).map((p) => p.name);
  assert.deepEqual(onRequest, ['openai-chat', 'openai-completions']);
});

test("every vLLM backend name maps to a protocol, whose endpoint is its family's", () => {
  for (const backend of BACKENDS) {
    const protocol = backendProtocol(backend);
    assert.equal(protocol, protocolByName(BACKEND_SPECS[backend].protocol), backend);
    assert.equal(endpointFamily(`/v1/${protocol.endpoint}`), protocol.family, backend);
  }
  assert.deepEqual(
    BACKENDS.map((b) => BACKEND_SPECS[b].protocol),
    ['openai-chat', 'openai-completions', 'openai-completions', 'anthropic-messages', 'openai-responses'],
  );
});
