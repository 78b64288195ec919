// Memory is bounded per stream, whatever its number of events: one answer of 1,000,000 tiny events, streamed
// through the real gateway (its own process, `tokenmeter serve`) and copied to a mirror, grows the gateway's
// resident memory by less than 50 MB, and each of the two ends in its record. With records.gaps on, the records
// list the first MAX_KEPT_GAPS gaps and say they were cut (itlMsCut).
//
// The upstream is a fast local server writing the events in batches as fast as the gateway takes them; the client
// reads and drops. The gateway's RSS is read from /proc every 20 ms while the stream runs (Linux only), against a
// baseline taken after a warm-up stream of WARM_UP_EVENTS (and its copy): the first burst of such traffic grows
// V8's heap (its young generation expands with the allocation rate) and the sockets' buffers by some 40-50 MB on
// this box whatever the stream's length (measured: +51 MB for 100,000 events, +42 MB for 1,000,000, +45 MB for
// 3,000,000), which is the process settling, not the stream's memory. What this test bounds is the growth
// after that.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { residentBytes, type SpawnedGateway, spawnGateway } from '../../bench/helpers/spawn-gateway.js';
import { MAX_KEPT_GAPS } from '../../src/measure/stream-meter.js';
import { startUpstream, type TestUpstream } from './helpers/upstream.js';

const EVENTS = 1_000_000;
const WARM_UP_EVENTS = 100_000;
const EVENTS_PER_WRITE = 1000;
const MAX_GROWTH_BYTES = 50 * 1024 * 1024;
/** The whole run's deadline: two streams of a million events each on a shared 2-core box. */
const RUN_DEADLINE_MS = 240_000;

const EVENT = 'data: {"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}\n\n';
const BATCH = Buffer.from(EVENT.repeat(EVENTS_PER_WRITE));
const END = Buffer.from(
  'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n',
);

/** Writes `events` events, waiting for the socket to drain whenever it is full, then the finish and [DONE]. */
async function serveLongStream(res: ServerResponse, events: number): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (let written = 0; written < events; written += EVENTS_PER_WRITE) {
    if (res.destroyed) return;
    if (!res.write(BATCH)) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
    }
  }
  res.end(END);
}

const skip = process.platform === 'linux' ? false : 'reads the gateway RSS from /proc (Linux only)';

let upstream: TestUpstream;
let dir: string;
before(async () => {
  upstream = await startUpstream((req, res) => {
    const warmUp = String(req.headers['x-request-id']).startsWith('warm-up');
    void serveLongStream(res, warmUp ? WARM_UP_EVENTS : EVENTS);
  });
  dir = await mkdtemp(join(tmpdir(), 'tokenmeter-long-stream-'));
});
after(async () => {
  await upstream.close();
  await rm(dir, { recursive: true, force: true });
});

async function recordsIn(
  file: string,
  count: number,
  deadlineMs: number,
): Promise<Record<string, unknown>[]> {
  const start = performance.now();
  for (;;) {
    const text = existsSync(file) ? await readFile(file, 'utf8') : '';
    const lines = text.split('\n').filter((line) => line.trim() !== '');
    if (lines.length >= count) return lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    if (performance.now() - start > deadlineMs) {
      throw new Error(`waited ${deadlineMs} ms for ${count} records in ${file}, found ${lines.length}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function streamThrough(gateway: SpawnedGateway, requestId: string): Promise<number> {
  const res = await request(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-request-id': requestId },
    body: JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'go on' }] }),
    bodyTimeout: RUN_DEADLINE_MS,
  });
  assert.equal(res.statusCode, 200);
  let bytes = 0;
  for await (const chunk of res.body) bytes += (chunk as Buffer).length;
  return bytes;
}

for (const recordGaps of [false, true]) {
  test(`a stream of ${EVENTS.toLocaleString('en')} events and its mirror copy grow the gateway's RSS by < 50 MB` +
    (recordGaps ? ', with records.gaps, whose lists are cut at MAX_KEPT_GAPS' : ''), {
    skip,
    timeout: RUN_DEADLINE_MS,
  }, async (t) => {
    const records = join(dir, `records-${recordGaps}.jsonl`);
    const config = join(dir, `gateway-${recordGaps}.json`);
    await writeFile(
      config,
      JSON.stringify({
        records: { file: records, gaps: recordGaps },
        upstreams: [
          {
            name: 'primary',
            baseUrl: `${upstream.url}/v1`,
            keyless: true,
            timeouts: { totalMs: RUN_DEADLINE_MS },
            models: [
              {
                alias: 'm',
                id: 'primary-model',
                mirror: { upstream: 'copy', model: 'copy-model', fraction: 1 },
              },
            ],
          },
          {
            name: 'copy',
            baseUrl: `${upstream.url}/v1`,
            keyless: true,
            timeouts: { totalMs: RUN_DEADLINE_MS },
          },
        ],
      }),
    );
    const gateway = await spawnGateway(['--config', config], join(dir, `gateway-${recordGaps}.log`));
    const pid = gateway.process.pid as number;
    try {
      // Warm up (modules, JIT, connections), then take the baseline.
      await streamThrough(gateway, 'warm-up');
      await recordsIn(records, 2, 10_000);
      const baseline = await residentBytes(pid);

      let peak = baseline;
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          peak = Math.max(peak, await residentBytes(pid));
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      })();
      const start = performance.now();
      const bytes = await streamThrough(gateway, 'long');
      const written = await recordsIn(records, 4, RUN_DEADLINE_MS);
      const long = written.filter((record) => String(record['requestId']).startsWith('long'));
      const primary = long.find((record) => record['role'] === 'primary');
      const mirror = long.find((record) => record['role'] === 'mirror');
      sampling = false;
      await sampler;
      const seconds = (performance.now() - start) / 1000;

      const growth = peak - baseline;
      t.diagnostic(
        `RSS ${(baseline / 2 ** 20).toFixed(1)} MB before, peak ${(peak / 2 ** 20).toFixed(1)} MB: ` +
          `+${(growth / 2 ** 20).toFixed(1)} MB for ${EVENTS} events x 2 streams in ${seconds.toFixed(1)} s`,
      );
      assert.equal(bytes, EVENTS * EVENT.length + END.length, 'the client received the whole stream');
      for (const [name, record] of [
        ['primary', primary],
        ['mirror', mirror],
      ] as const) {
        assert.ok(record !== undefined, `no ${name} record`);
        assert.equal(record['role'], name);
        assert.equal(record['outcome'], 'ok', `${name}: ${String(record['error'])}`);
        assert.equal(record['contentChunks'], EVENTS);
        if (recordGaps) {
          assert.equal((record['itlMs'] as unknown[]).length, MAX_KEPT_GAPS, `${name}'s gap list`);
          assert.equal(record['itlMsCut'], true);
        } else {
          assert.equal(record['itlMs'], undefined);
          assert.equal(record['itlMsCut'], undefined);
        }
      }
      assert.ok(
        growth < MAX_GROWTH_BYTES,
        `the gateway's RSS grew by ${(growth / 2 ** 20).toFixed(1)} MB (from ${(baseline / 2 ** 20).toFixed(1)} MB)`,
      );
    } finally {
      gateway.process.kill('SIGTERM');
      await gateway.exited;
    }
  });
}
