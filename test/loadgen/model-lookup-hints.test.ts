// bench without --model asks GET /v1/models which model to send, with the run's own key header. When that lookup
// is refused, its hint names the header the backend's protocol takes the key in (the protocol table's), not one
// guessed from the path: /v1/models ends in neither /messages nor /completions.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { startUpstream } from '../gateway/helpers/upstream.js';
import { runCli } from '../helpers/run-cli.js';

const EXIT_FAILURE = 1;

test('an anthropic-messages run whose model lookup gets 401 hints x-api-key, and sent its key there', async (t) => {
  const refusing = await startUpstream((_req, res) => {
    res.writeHead(401, { 'content-type': 'application/json' });
    res.end('{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}');
  });
  t.after(() => refusing.close());
  const dir = await mkdtemp(join(tmpdir(), 'tokenmeter-lookup-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const args = [
    'bench',
    '--backend',
    'anthropic-messages',
    '--base-url',
    refusing.url,
    '--dataset-name',
    'random',
    '--num-prompts',
    '1',
    '--result-dir',
    dir,
  ];
  const { ANTHROPIC_API_KEY: _unset, ...env } = process.env;

  const keyless = await runCli(args, env);
  assert.equal(keyless.code, EXIT_FAILURE, keyless.stderr + keyless.stdout);
  assert.match(keyless.stderr, /no --model given and .*\/v1\/models did not name one \(HTTP 401/);
  assert.match(
    keyless.stderr,
    /none was sent: set one \(an environment variable, sent as "x-api-key: <key>"\)/,
  );

  const keyed = await runCli(args, { ...env, ANTHROPIC_API_KEY: 'wrong-key' });
  assert.equal(keyed.code, EXIT_FAILURE, keyed.stderr + keyed.stdout);
  assert.match(
    keyed.stderr,
    /the upstream refused the key that was sent: check that \$ANTHROPIC_API_KEY holds/,
  );
  const lookup = refusing.requests.at(-1);
  assert.equal(lookup?.url, '/v1/models');
  assert.equal(lookup?.headers['x-api-key'], 'wrong-key', 'the lookup sent the key as the run would');
  assert.equal(lookup?.headers.authorization, undefined);
});
