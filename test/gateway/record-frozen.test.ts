// Every sink gets the same record, frozen through and through: its nested parts (gap counts, path fixes, the
// per-chunk gaps of records.gaps) cannot be changed by one sink under the others' feet.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { startGateway } from './helpers/gateway.js';
import { chatChunk, startUpstream, type TestUpstream } from './helpers/upstream.js';

let upstream: TestUpstream;

before(async () => {
  // Three content chunks apart in time, so the record has gaps to count and to list.
  upstream = await startUpstream(async (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const word of ['a', ' b', ' c']) {
      res.write(chatChunk({ content: word }));
      await sleep(5);
    }
    res.end(`${chatChunk({}, 'stop')}data: [DONE]\n\n`);
  });
});
after(() => upstream.close());

test('the record a sink receives is frozen, and so is every object and array inside it', async (t) => {
  const gateway = await startGateway({
    upstreams: [{ name: 'u', baseUrl: upstream.url, keyless: true }],
    records: { gaps: true },
  });
  t.after(() => gateway.close());
  // `/v1/v1/...`: the doubled prefix is fixed, so pathFixes is not empty.
  const response = await request(`${gateway.url}/v1/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
  });
  await response.body.text();
  const [record] = await gateway.recordsAfter(1);
  assert.ok(record?.gapCounts, 'the record has gap counts');
  assert.ok(record.itlMs !== undefined && record.itlMs.length === 2, 'and two gaps listed');
  assert.ok(record.pathFixes.length > 0, 'and a path fix');
  for (const [name, part] of Object.entries({
    record,
    gapCounts: record.gapCounts,
    'gapCounts.counts': record.gapCounts.counts,
    itlMs: record.itlMs,
    pathFixes: record.pathFixes,
  })) {
    assert.ok(Object.isFrozen(part), `${name} is frozen`);
  }
  const writable = record as unknown as { gapCounts: { counts: Record<string, number> }; itlMs: number[] };
  assert.throws(() => {
    writable.gapCounts.counts['0.005'] = 99;
  }, TypeError);
  assert.throws(() => writable.itlMs.push(1), TypeError);
});
