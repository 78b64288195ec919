// Fault-matrix row: a worker of `serve --workers 2` killed with SIGKILL (as the OOM killer would) while it holds
// streams. What its clients receive: a cut stream (the kernel closes the dead worker's sockets; no error event,
// no [DONE]). The other worker's clients are unaffected and finish. The accounting: those requests can have no
// record (the process measuring them is gone), so the primary counts them lost, from the in-flight count the worker
// last reported, in tokenmeter_requests_lost_total{reason="worker_exit"} and a log line; records + counted losses
// = requests sent.
//
// The count is the worker's last report, which trails its real count by the requests that began or ended within
// the last report interval (IN_FLIGHT_REPORT_MS, 100 ms) before the kill. Here it is exact: every stream is held
// open until after the kill, and the kill waits for a scrape that showed all of them in flight (a scrape brings
// every worker's count to the primary with its registry), so nothing starts or ends between that report and the
// kill.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request as httpRequest, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { recordsFilesAt } from '../../src/measure/record-files.js';
import { parseRecordLines } from '../../src/measure/record-lines.js';
import {
  type ClusterGateway,
  requestOnNewConnection,
  sampleSum,
  startClusterGateway,
} from '../cluster/helpers/cluster-gateway.js';
import { chatChunk, startUpstream, type TestUpstream } from '../gateway/helpers/upstream.js';
import { withDeadline } from '../helpers/deadline.js';

const STREAMS = 20;
const STREAMED = JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] });
const FINISH = `${chatChunk({}, 'stop')}data: [DONE]\n\n`;

let upstream: TestUpstream;
let gateway: ClusterGateway;
let folder: string;
/** Streams the upstream holds open, after their first chunk, until released. */
const held: ServerResponse[] = [];

before(async () => {
  upstream = await startUpstream((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(chatChunk({ role: 'assistant', content: 'a' }));
    held.push(res);
  });
  folder = await mkdtemp(join(tmpdir(), 'tokenmeter-worker-exit-'));
  gateway = await startClusterGateway([
    '--upstream',
    `${upstream.url}/v1`,
    '--metrics-port',
    '0',
    '--records',
    join(folder, 'records.jsonl'),
  ]);
});

after(async () => {
  if (gateway.child.exitCode === null) gateway.child.kill('SIGKILL');
  await upstream.close();
  await rm(folder, { recursive: true, force: true });
});

interface Stream {
  /** Resolves once the first chunk came. */
  readonly started: Promise<void>;
  /** How it ended: whole (through [DONE]) or cut. */
  readonly ended: Promise<'whole' | 'cut'>;
}

/** A streamed request on a connection of its own, so that the cluster spreads them over both workers. */
function openStream(url: string): Stream {
  let onStart: () => void = () => {};
  const started = new Promise<void>((resolve) => {
    onStart = resolve;
  });
  const ended = new Promise<'whole' | 'cut'>((resolve) => {
    const req = httpRequest(
      url,
      { method: 'POST', agent: false, headers: { 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (text === '') onStart();
          text += chunk;
        });
        res.on('error', () => {});
        res.on('close', () => resolve(res.complete && text.includes('data: [DONE]') ? 'whole' : 'cut'));
      },
    );
    req.on('error', () => resolve('cut'));
    req.end(STREAMED);
  });
  return { started, ended };
}

async function scrape(): Promise<string> {
  assert.ok(gateway.metricsUrl !== null);
  return (await requestOnNewConnection(gateway.metricsUrl)).body;
}

test('SIGKILL to a worker holding streams: its clients are cut, the primary counts them lost, nothing is unaccounted', async () => {
  const streams = Array.from({ length: STREAMS }, () => openStream(`${gateway.url}/v1/chat/completions`));
  await withDeadline(Promise.all(streams.map((s) => s.started)), () => 'every stream started', 30_000);
  // Every stream in flight, as the primary heard it with this scrape's registries.
  await withDeadline(
    (async () => {
      while (sampleSum(await scrape(), 'tokenmeter_requests_in_flight') !== STREAMS) await sleep(20);
    })(),
    () => 'the gateway reporting every stream in flight',
    30_000,
  );
  assert.equal(sampleSum(await scrape(), 'tokenmeter_requests_lost_total'), 0);

  const [killed] = gateway.pids;
  assert.ok(killed !== undefined);
  process.kill(killed, 'SIGKILL');
  const [line] = await gateway.waitForLine(/exited on SIGKILL holding (\d+) requests/);
  const lost = Number(line?.[1]);
  // The surviving worker's streams finish now; the dead worker's upstream requests were closed with it.
  for (const res of held) if (!res.destroyed) res.end(FINISH);
  const endings = await withDeadline(
    Promise.all(streams.map((s) => s.ended)),
    () => 'every stream ending',
    30_000,
  );
  const cut = endings.filter((e) => e === 'cut').length;

  assert.ok(cut > 0 && cut < STREAMS, `the cluster spread the streams over both workers (${cut} cut)`);
  assert.equal(lost, cut, 'the primary counted lost exactly the streams whose clients were cut');
  assert.equal(sampleSum(await scrape(), 'tokenmeter_requests_lost_total'), cut);
  assert.ok(
    (await scrape()).includes('tokenmeter_requests_lost_total{reason="worker_exit"}'),
    'the loss is counted with its reason',
  );

  gateway.child.kill('SIGTERM');
  assert.equal(await gateway.exited, 0);
  const records = [];
  for (const file of recordsFilesAt(join(folder, 'records.jsonl'))) {
    const lines = parseRecordLines(await readFile(file, 'utf8'));
    assert.equal(lines.malformed, 0);
    records.push(...lines.records);
  }
  assert.equal(records.length, STREAMS - cut, 'one record per stream of the surviving worker');
  for (const record of records) assert.equal(record['outcome'], 'ok');
  assert.equal(records.length + lost, STREAMS, 'records + counted losses = requests sent');
});
