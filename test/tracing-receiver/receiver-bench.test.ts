// `tokenmeter bench --span-receiver-port`: the run listens for its server's spans; an upstream that traces like
// vLLM (continues the bench's traceparent, exports llm_request with the official exporter) gets its segments
// into every request's record; with no span, every record is still written, after the wait. One record per
// request in both.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { RequestRecord } from '../../loadgen/record.js';
import { EXIT_OK } from '../../src/cli/command.js';
import { parseTraceparent } from '../../src/shared/trace-context.js';
import { TRACES_PATH } from '../../src/tracing/receiver/span-receiver.js';
import { sendShortChatStream, startUpstream, type TestUpstream } from '../gateway/helpers/upstream.js';
import { bench, cleanEnv, scratchDir } from '../loadgen/helpers/bench-cli.js';
import { exportWithSdk, llmRequestAttributes, sdkSpans } from './helpers/sdk-export.js';

const PROMPTS = 4;
const upstreams: TestUpstream[] = [];
after(() => Promise.all(upstreams.map((u) => u.close())));

/** A port free a moment ago, for the bench child to listen on (it must be known before the run starts). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** An upstream answering every chat request; with `exportTo`, it first exports the request's llm_request span. */
async function tracingUpstream(exportTo: string | null): Promise<TestUpstream> {
  const upstream = await startUpstream((req, res) => {
    if (req.url?.startsWith('/v1/models')) {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"object":"list","data":[{"id":"m"}]}');
      return;
    }
    const parent = parseTraceparent(req.headers['traceparent']);
    if (exportTo === null || parent === undefined) {
      sendShortChatStream(res);
      return;
    }
    const spans = sdkSpans([
      {
        traceId: parent.traceId,
        parentSpanId: parent.parentId,
        attributes: llmRequestAttributes({
          queue: 0.001,
          prefill: 0.002,
          decode: 0.004,
          ttft: 0.003,
          e2e: 0.007,
        }),
      },
    ]);
    // Exported before the answer ends, and the run's last request's span may still come after its record:
    // either way it must join.
    exportWithSdk(exportTo, 'json', spans).then(() => sendShortChatStream(res));
  });
  upstreams.push(upstream);
  return upstream;
}

async function runBench(
  upstream: TestUpstream,
  port: number,
  extra: string[] = [],
): Promise<RequestRecord[]> {
  const dir = scratchDir();
  const cli = await bench(
    [
      '--base-url',
      upstream.url,
      '--model',
      'm',
      '--num-prompts',
      String(PROMPTS),
      '--sharegpt-output-len',
      '2',
      '--disable-tqdm',
      '--records-file',
      join(dir, 'records.jsonl'),
      '--span-receiver-port',
      String(port),
      ...extra,
    ],
    cleanEnv(),
  );
  assert.equal(cli.code, EXIT_OK, cli.stderr);
  return readFileSync(join(dir, 'records.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as RequestRecord);
}

function assertOneRecordPerIndex(records: readonly RequestRecord[]): void {
  assert.deepEqual(
    records.map((r) => r.index).sort((a, b) => a - b),
    Array.from({ length: PROMPTS }, (_, i) => i),
  );
}

test("every request's record carries its server's segments", async () => {
  const port = await freePort();
  const upstream = await tracingUpstream(`http://127.0.0.1:${port}${TRACES_PATH}`);
  const records = await runBench(upstream, port);
  assertOneRecordPerIndex(records);
  for (const record of records) {
    assert.equal(record.outcome, 'ok');
    assert.deepEqual(record.server, {
      queueMs: 1,
      prefillMs: 2,
      decodeMs: 4,
      inferenceMs: 6,
      ttftMs: 3,
      e2eMs: 7,
    });
  }
});

test('with no span coming, every record is written without after the wait', async () => {
  const port = await freePort();
  const upstream = await tracingUpstream(null);
  const records = await runBench(upstream, port, ['--span-receiver-wait-ms', '100']);
  assertOneRecordPerIndex(records);
  for (const record of records) assert.equal(record.server, undefined);
});
