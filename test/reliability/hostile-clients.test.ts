// The fault matrix, hostile clients: requests written to attack what the gateway does with them rather than to
// get an answer. Each row says what the client sends, what it receives, what reaches the upstream, the record
// and the accounting (one record per request, test/reliability/accounting.ts). Traversal spellings are rows of
// client-faults.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { request } from 'undici';
import { prettyLine } from '../../src/gateway/pretty-log.js';
import { startGateway } from '../gateway/helpers/gateway.js';
import { sendShortChatStream, startUpstream } from '../gateway/helpers/upstream.js';
import { closeAndAccount } from './accounting.js';

/** A terminal-title change (OSC 0 ... BEL), a screen clear (CSI 2J), a C1 CSI, then CR, NUL and DEL. */
const HOSTILE_MODEL = 'm\u001b]0;owned\u0007\u001b[2J\u009b31m\r\u0000\u007fend';
// biome-ignore lint/suspicious/noControlCharactersInRegex: looking for control characters is the point.
const RAW_CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

test('a model name with terminal escapes, CR and NUL: answered, escaped in the pretty log and /metrics', async (t) => {
  const upstream = await startUpstream((_req, res) => sendShortChatStream(res));
  t.after(() => upstream.close());
  const gateway = await startGateway({ upstreams: [{ name: 'u', baseUrl: upstream.url, keyless: true }] });
  const response = await request(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: HOSTILE_MODEL, stream: true }),
  });
  const answer = await response.body.text();
  assert.equal(response.statusCode, 200);
  assert.match(answer, /\[DONE\]/);
  assert.equal(JSON.parse(upstream.requests[0]?.body.toString() ?? '{}').model, HOSTILE_MODEL);
  const page = await (await request(`${gateway.url}/metrics`)).body.text();
  const [record] = await closeAndAccount(gateway, 1);
  assert.equal(record?.outcome, 'ok');
  assert.equal(record?.modelAsked, HOSTILE_MODEL, 'the record keeps the name as sent (JSON escapes it)');

  // What the terminal would show: the request's line in the pretty format (the default on a terminal).
  const jsonLine = gateway.logs.find((line) => line.includes('request finished'));
  assert.ok(jsonLine, 'the request has a log line');
  const pretty = prettyLine(jsonLine).trimEnd();
  assert.doesNotMatch(pretty, RAW_CONTROL, pretty);
  assert.ok(
    pretty.includes(String.raw`model="m\u001b]0;owned\u0007\u001b[2J\u009b31m\r\u0000\u007fend"`),
    pretty,
  );

  const labelled = page.split('\n').filter((line) => line.includes('owned'));
  assert.ok(labelled.length > 0, 'the model has its own label');
  for (const line of labelled) assert.doesNotMatch(line, RAW_CONTROL, JSON.stringify(line));
  assert.ok(
    labelled.some((line) => line.includes(String.raw`model="m\\u001b]0;owned`)),
    labelled[0],
  );
});
