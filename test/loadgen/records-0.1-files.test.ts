// Record files written by 0.1 stay readable: the gateway's (completionTokens, completionTokensSource, gapsMs) by
// the records replay and by --gateway-records, the load generator's (e2elMs, chunkCount, the outcome words
// timeout, connect_error, aborted) by the records reader, all through the one reader, src/measure/record-lines.ts.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { parseRecordsJsonl } from '../../loadgen/bench/records-file.js';
import { compareWithGateway, readGatewayRecords } from '../../loadgen/gateway-timings.js';
import { chatChunk, startUpstream, type TestUpstream } from '../gateway/helpers/upstream.js';
import { runCli } from '../helpers/run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'tokenmeter-0.1-records-'));

/** Three gateway records as 0.1 wrote them (abridged to the fields the readers use, plus the renamed ones). */
const GATEWAY_0_1 = [0, 1, 2]
  .map((i) =>
    JSON.stringify({
      requestId: `old-${i}`,
      startedAt: `2026-11-02T10:00:0${i}.000Z`,
      receivedAtMonotonicMs: 1000 + i * 1000,
      method: 'POST',
      pathAsked: '/v1/chat/completions',
      pathSent: '/v1/chat/completions',
      status: 200,
      outcome: 'ok',
      ttfbMs: 5,
      ttftMs: 20 + i,
      lastTokenMs: 60 + i,
      e2eMs: 62 + i,
      gatewayOverheadMs: 0.5,
      promptTokens: 12,
      completionTokens: 3 + i,
      completionTokensSource: 'usage',
      contentChunks: 3 + i,
      gapsMs: [20, 20],
      error: null,
    }),
  )
  .join('\n');

/** The load generator's own records of the same requests, as 0.1 wrote them (`--records-file`). */
const BENCH_0_1 = [0, 1, 2]
  .map((i) =>
    JSON.stringify({
      index: i,
      intendedOffsetMs: i * 1000,
      sentAtMs: i * 1000,
      clientQueueMs: 0,
      ttfbMs: 6,
      ttftMs: 22 + i,
      itlMs: [20, 20],
      e2elMs: 63 + i,
      outputTokens: 3 + i,
      outputTokensSource: 'usage',
      promptTokens: 12,
      chunkCount: 3 + i,
      outcome: i === 2 ? 'timeout' : 'ok',
      status: 200,
      error: null,
      errorBodyExcerpt: null,
      generatedTextLength: 10,
    }),
  )
  .join('\n');

let upstream: TestUpstream;
before(async () => {
  upstream = await startUpstream((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(`${chatChunk({ content: 'one' })}${chatChunk({}, 'stop')}data: [DONE]\n\n`);
  });
});
after(() => upstream.close());

test('a 0.1 gateway records file replays: completionTokens become the replayed output lengths', async () => {
  const file = join(dir, 'gateway-0.1.jsonl');
  writeFileSync(file, `${GATEWAY_0_1}\n`);
  const before = upstream.requests.length;
  const res = await runCli([
    'bench',
    '--base-url',
    upstream.url,
    '--model',
    'm',
    '--dataset-name',
    'records',
    '--dataset-path',
    file,
    '--replay-speed',
    '100',
    '--no-records',
    '--disable-tqdm',
  ]);
  assert.equal(res.code, 0, res.stderr);
  assert.match(res.stderr, /replaying 3 gateway records/);
  assert.doesNotMatch(res.stderr, /without token counts/);
  const maxTokens = upstream.requests
    .slice(before)
    .filter((r) => r.method === 'POST')
    .map((r) => JSON.parse(r.body.toString('utf8')) as Record<string, unknown>)
    .map((body) => body['max_completion_tokens'] ?? body['max_tokens']);
  assert.deepEqual(maxTokens, [3, 4, 5]);
});

test('--gateway-records reads a 0.1 gateway file against 0.1 client records, in the new names', () => {
  const file = join(dir, 'gateway-0.1-compare.jsonl');
  writeFileSync(file, `${GATEWAY_0_1}\n{"requestId":"old-3","ttft`);
  const gateway = readGatewayRecords(file);
  assert.equal(gateway.length, 3, 'the torn last line is skipped');
  const client = parseRecordsJsonl(BENCH_0_1);
  assert.deepEqual(
    client.map((r) => [r.lastTokenMs, r.contentChunks, r.outcome]),
    [
      [63, 3, 'ok'],
      [64, 4, 'ok'],
      [65, 5, 'upstream_timeout'],
    ],
  );
  assert.equal('e2elMs' in (client[0] as object), false);
  const comparison = compareWithGateway(client, gateway, 'old-', [50]);
  assert.equal(comparison?.matched, 2);
  assert.equal(comparison?.addedTtft.mean, 2);
  assert.equal(comparison?.clientE2el.mean, 63.5);
  assert.equal(comparison?.gatewayE2el.mean, 60.5);
});
