// Item 8 of issue 30, a row of the fault matrix for the doctor: an endpoint that quotes the key it was sent, in a
// 401's error message (as OpenAI's "Incorrect API key provided: ...") or as a model in its list. The doctor once
// printed it, in its text and its --json, right after saying "(never printed)". Now no line of either holds it:
// the endpoint's words are still quoted, with the key replaced (src/doctor/run-doctor.ts, through the gateway's
// key scrubber).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EXIT_RUN_FAILED } from '../../src/cli/command.js';
import { REDACTED } from '../../src/gateway/exchange/key-scrubber.js';
import { startUpstream } from '../gateway/helpers/upstream.js';
import { runCli } from '../helpers/run-cli.js';

// With a `/`, which JSON may write as `\/`: the endpoint below does, as PHP's json_encode does by default.
const KEY = 'sk-live/doctor-echo-4Rt9Qw2Zx';

test('item 8, an endpoint that echoes the key in its 401 and lists it as a model: the doctor quotes the endpoint without the key, in text and --json', async (t) => {
  /** First the 401 that quotes the key, then a model list that holds it. */
  let upstreamListsKey = false;
  const upstream = await startUpstream((req, res) => {
    const sent = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
    if (req.url === '/v1/models' && upstreamListsKey) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: sent, object: 'model' }] }));
      return;
    }
    if (req.url === '/v1/models') {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          error: { message: `Incorrect API key provided: ${sent}.`, code: 'invalid_api_key' },
        }).replaceAll('/', '\\/'),
      );
      return;
    }
    res.writeHead(404).end();
  });
  t.after(() => upstream.close());
  const env = { ...process.env, OPENAI_API_KEY: KEY };
  const doctor = async (json: boolean): Promise<string> => {
    const args = ['doctor', '--base-url', upstream.url, '--model', 'm', ...(json ? ['--json'] : [])];
    const run = await runCli(args, env);
    const output = run.stdout + run.stderr;
    assert.equal(run.code, EXIT_RUN_FAILED, output);
    assert.ok(!output.includes(KEY), `the key in the doctor's ${json ? '--json' : 'text'}: ${output}`);
    assert.ok(!output.includes('4Rt9Qw2Zx'), `part of the key: ${output}`);
    assert.match(output, /never printed/);
    return output;
  };
  for (const json of [false, true]) {
    assert.ok((await doctor(json)).includes(`Incorrect API key provided: ${REDACTED}`));
  }
  upstreamListsKey = true;
  for (const json of [false, true]) assert.ok((await doctor(json)).includes(REDACTED));
  // Accounting: each run asked for the model list once; the first two stopped at its 401.
  assert.equal(upstream.requests.filter((r) => r.url === '/v1/models').length, 4);
});
