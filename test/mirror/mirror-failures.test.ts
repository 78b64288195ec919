// `compare --pairs` when the mirror copies fail (issue 23, item 10): the outcomes line alone said `ok / http_error`;
// the mirror's records know why (the path sent, the status, the gateway's hint), and the summary now says it. The
// mirror here is a simulator behind a base URL that ends in /v1 twice, so every copy is a 404.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { DEFAULT_MODEL_NAME } from '../../src/sim/config.js';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { startGateway } from '../gateway/helpers/gateway.js';
import { runCli } from '../helpers/run-cli.js';

const PAIRS = 6;
let folder: string;
let recordsFile: string;
const sims: RunningSimulator[] = [];

before(async () => {
  const local = await startSimulator({ seed: 1, timing: { ttftMs: 5, itlMs: 1, jitter: 0 } });
  const hosted = await startSimulator({ seed: 2, timing: { ttftMs: 5, itlMs: 1, jitter: 0 } });
  sims.push(local, hosted);
  folder = await mkdtemp(join(tmpdir(), 'tokenmeter-mirror-failures-'));
  recordsFile = join(folder, 'gateway.jsonl');
  const gateway = await startGateway({
    records: { file: recordsFile },
    upstreams: [
      {
        name: 'local',
        baseUrl: `${local.url}/v1`,
        keyless: true,
        models: [
          {
            alias: 'm',
            id: DEFAULT_MODEL_NAME,
            mirror: { upstream: 'hosted', model: 'not-served', fraction: 1 },
          },
        ],
      },
      { name: 'hosted', baseUrl: `${hosted.url}/v1`, keyless: true },
    ],
  });
  for (let i = 0; i < PAIRS; i++) {
    const response = await request(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'm',
        stream: true,
        max_tokens: 4,
        messages: [{ role: 'user', content: 'hi' }],
      }),
    });
    assert.equal(response.statusCode, 200);
    await response.body.text();
    await gateway.recordsAfter(2 * (i + 1));
  }
  await gateway.close();
});

after(async () => {
  await Promise.all(sims.map((s) => s.close()));
  await rm(folder, { recursive: true, force: true });
});

test('every mirrored copy failed: the summary says how, with the path sent, the status and the hint', async () => {
  const result = await runCli(['compare', '--pairs', recordsFile]);
  assert.match(
    result.stdout,
    new RegExp(`Outcomes \\(primary / mirror\\): ok / http_error: ${PAIRS}\\.`),
    result.stdout,
  );
  const note = result.stdout.split('\n').find((line) => line.startsWith('Mirror copies failed: '));
  assert.ok(note, result.stdout + result.stderr);
  assert.match(
    note,
    new RegExp(`^Mirror copies failed: ${PAIRS} http_error, HTTP 404, sent to /v1/chat/completions: `),
  );
  assert.match(note, /hint: .*\/v1/, "the gateway's hint about the doubled /v1");
});
