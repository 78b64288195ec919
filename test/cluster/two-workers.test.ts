// A gateway of two workers (`tokenmeter serve --workers 2`, the real CLI) is one gateway to its clients and its
// observers: requests spread over both workers, /metrics on the API port counts every request of both, its page
// keeps the metrics contract, each request has exactly one whole record (one file per worker), a path-fix hint is
// logged once for the gateway, and SIGTERM drains both workers: streams in flight on each complete, exit code 0.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { recordsFilesAt } from '../../src/measure/record-files.js';
import { parseRecordLines } from '../../src/measure/record-lines.js';
import {
  chatChunk,
  sendShortChatStream,
  startUpstream,
  type TestUpstream,
} from '../gateway/helpers/upstream.js';
import { contractDifferences, loadContract } from '../observability/helpers/contract.js';
import { parseExposition } from '../observability/helpers/exposition.js';
import { assertOneRecordPerRequest } from '../reliability/accounting.js';
import {
  type ClusterGateway,
  requestOnNewConnection,
  sampleSum,
  startClusterGateway,
} from './helpers/cluster-gateway.js';

const STREAMED = JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] });
/** The model name marks the streams the upstream holds, in the request and in its record. */
const HELD = JSON.stringify({ model: 'held', stream: true, messages: [{ role: 'user', content: 'hi' }] });
/** Streams held open across the SIGTERM: more than workers, so each worker holds some. */
const HELD_STREAMS = 4;

let upstream: TestUpstream;
let gateway: ClusterGateway;
let folder: string;
let recordsPath: string;
const held: ServerResponse[] = [];
let heldArrived: () => void;
const allHeld = new Promise<void>((resolve) => (heldArrived = resolve));
let sent = 0;

before(async () => {
  upstream = await startUpstream((_req, res, body) => {
    if (!body.toString().includes('"held"')) {
      sendShortChatStream(res);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(chatChunk({ content: 'first' }));
    held.push(res);
    if (held.length === HELD_STREAMS) heldArrived();
  });
  folder = await mkdtemp(join(tmpdir(), 'tokenmeter-cluster-'));
  recordsPath = join(folder, 'records.jsonl');
  gateway = await startClusterGateway(['--upstream', `${upstream.url}/v1`, '--records', recordsPath]);
});

after(async () => {
  if (gateway.child.exitCode === null) gateway.child.kill('SIGKILL');
  await upstream.close();
  await rm(folder, { recursive: true, force: true });
});

test('requests spread over both workers are all counted by the /metrics of whichever worker is scraped', async () => {
  for (let i = 0; i < 10; i++) {
    const answer = await requestOnNewConnection(`${gateway.url}/v1/chat/completions`, 'POST', STREAMED);
    assert.equal(answer.status, 200);
    sent++;
  }
  // Missing /v1 twice, on two connections (so on both workers): the hint is one line for the gateway.
  for (let i = 0; i < 2; i++) {
    const answer = await requestOnNewConnection(`${gateway.url}/chat/completions`, 'POST', STREAMED);
    assert.equal(answer.status, 200);
    sent++;
  }
  // A request is counted when its response closes, a moment after the client read its end: every worker says
  // none is in flight before the totals are read. Each scrape may reach either worker; all answer alike.
  let page = '';
  for (;;) {
    page = (await requestOnNewConnection(`${gateway.url}/metrics`)).body;
    if (sampleSum(page, 'tokenmeter_requests_in_flight') === 0) break;
  }
  assert.equal(sampleSum(page, 'tokenmeter_requests_total'), sent);
  assert.equal(sampleSum(page, 'tokenmeter_request_duration_seconds_count'), sent);
  assert.equal(sampleSum(page, 'tokenmeter_path_fixes_total'), 2);
  // Counters summed, histograms merged: one page that keeps the contract. The test's traffic has no prices, so
  // the cost counter (and other families this traffic does not reach) may have no samples: that is not a drift.
  const drift = contractDifferences(loadContract().gateway, parseExposition(page)).filter(
    (problem) => !problem.includes('no samples'),
  );
  assert.deepEqual(drift, []);
});

test('SIGTERM drains both workers: streams in flight on each complete, one whole record per request, exit 0', async () => {
  const streams = Array.from({ length: HELD_STREAMS }, () =>
    requestOnNewConnection(`${gateway.url}/v1/chat/completions`, 'POST', HELD),
  );
  sent += HELD_STREAMS;
  await allHeld;
  gateway.child.kill('SIGTERM');
  // Both workers began their drain while the streams were still held.
  await gateway.waitForLine(/draining: no new connections/, 2);
  for (const res of held) res.end(`${chatChunk({}, 'stop')}data: [DONE]\n\n`);
  for (const answer of await Promise.all(streams)) {
    assert.equal(answer.status, 200);
    assert.match(answer.body, /first[\s\S]*data: \[DONE\]/);
  }
  assert.equal(await gateway.exited, 0);

  const files = recordsFilesAt(recordsPath);
  assert.deepEqual(
    files.map((f) => f.slice(folder.length + 1)),
    ['records.worker1.jsonl', 'records.worker2.jsonl'],
  );
  const perWorker = await Promise.all(files.map(async (f) => parseRecordLines(await readFile(f, 'utf8'))));
  for (const lines of perWorker) {
    assert.equal(lines.malformed, 0, 'no torn or interleaved line');
    // Each worker held at least one of the streams when the drain began, and finished it.
    assert.ok(lines.records.some((r) => r['modelAsked'] === 'held' && r['outcome'] === 'ok'));
  }
  const records = perWorker.flatMap((lines) => lines.records);
  assertOneRecordPerRequest(records as never, sent);
  // The path-fix hint: one line for the gateway, though both workers met the path.
  assert.equal(gateway.lines().filter((l) => l.includes('was served as')).length, 1);
});
