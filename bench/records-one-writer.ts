// What writing every worker's records through one writer would cost, against what `serve --workers N` does (each
// worker appends to its own file with its own RecordsWriter). A cluster of 2 workers; each finishes RECORDS
// gateway-sized records as fast as it can, either into its own RecordsWriter, or by sending each serialized
// line to the primary over the cluster's IPC channel, where one append stream writes them all (the line as it
// came: the least a single writer could do, without RecordsWriter's whole-line accounting, which would add to
// it). Reported: CPU microseconds per record in the workers and in the primary, and records/s. Not part of
// `npm test`:
//
//   npm run build && node dist/bench/records-one-writer.js [--records 100000]
import cluster from 'node:cluster';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import type { RequestRecord } from '../src/gateway/records/record.js';
import { RecordsWriter } from '../src/shared/records-writer.js';

const WORKERS = 2;
const { values: args } = parseArgs({ options: { records: { type: 'string', default: '100000' } } });
const RECORDS = Number(args.records);

/** A streamed chat request's record as the gateway writes it (about 1 KB of JSON). */
function record(i: number): RequestRecord {
  return {
    requestId: `req-${process.pid}-${i}`,
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    spanId: '00f067aa0ba902b7',
    parentSpanId: null,
    startedAt: new Date().toISOString(),
    receivedAtMonotonicMs: performance.now(),
    method: 'POST',
    upstream: 'vllm',
    modelAsked: 'meta-llama/Llama-3.1-8B-Instruct',
    modelSent: 'meta-llama/Llama-3.1-8B-Instruct',
    pathAsked: '/v1/chat/completions',
    pathSent: '/v1/chat/completions',
    pathFixes: [],
    stream: true,
    status: 200,
    outcome: 'ok',
    upstreamRequestMs: 0.41,
    upstreamSocketWriteMs: 0.52,
    ttfbMs: 31.2,
    ttftMs: 35.7,
    lastTokenMs: 2204.9,
    e2eMs: 2205.3,
    tpotMs: 17.1,
    gatewayOverheadMs: 0.63,
    promptTokens: 812,
    outputTokens: 128,
    outputTokensSource: 'usage',
    costInput: null,
    costOutput: null,
    currency: null,
    contentChunks: 128,
    meanTokensPerChunk: 1,
    maxTokensPerChunk: 1,
    finishReason: 'length',
    sseOverflow: false,
    usageInjected: true,
    error: null,
    hint: null,
  } as unknown as RequestRecord;
}

type Mode = 'own-file' | 'one-writer';

async function runWorker(mode: Mode, folder: string): Promise<void> {
  const writer =
    mode === 'own-file' ? new RecordsWriter(join(folder, `w${process.pid}.jsonl`), () => {}) : null;
  const cpu = process.cpuUsage();
  const start = performance.now();
  for (let i = 0; i < RECORDS; i++) {
    if (writer !== null) writer.add(record(i));
    else process.send?.(`${JSON.stringify(record(i))}\n`);
    // Let writes and IPC flush as a serving gateway's event loop would between requests.
    if (i % 100 === 99) await new Promise((resolve) => setImmediate(resolve));
  }
  await writer?.close();
  const used = process.cpuUsage(cpu);
  // Disconnecting drops messages still queued: the last one's callback says every line before it was sent.
  process.send?.({ done: true, cpuUs: used.user + used.system, ms: performance.now() - start }, () =>
    process.disconnect(),
  );
}

async function runMode(mode: Mode, folder: string): Promise<void> {
  const writer = createWriteStream(join(folder, `${mode}-primary.jsonl`), { flags: 'a' });
  const cpu = process.cpuUsage();
  const start = performance.now();
  let workerCpuUs = 0;
  let finished = 0;
  await new Promise<void>((resolve) => {
    for (let w = 0; w < WORKERS; w++) {
      const worker = cluster.fork({ BENCH_MODE: mode, BENCH_FOLDER: folder });
      worker.on('message', (message: string | { done: true; cpuUs: number }) => {
        if (typeof message === 'string') {
          writer.write(message);
          return;
        }
        workerCpuUs += message.cpuUs;
        if (++finished === WORKERS) resolve();
      });
    }
  });
  await new Promise((resolve) => writer.end(resolve));
  const ms = performance.now() - start;
  const used = process.cpuUsage(cpu);
  const total = RECORDS * WORKERS;
  console.log(
    `${mode.padEnd(11)}${(workerCpuUs / total).toFixed(2).padStart(12)}${((used.user + used.system) / total).toFixed(2).padStart(13)}${((total / ms) * 1000).toFixed(0).padStart(11)}`,
  );
}

if (cluster.isWorker) {
  await runWorker(process.env['BENCH_MODE'] as Mode, process.env['BENCH_FOLDER'] ?? '');
} else {
  const folder = mkdtempSync(join(tmpdir(), 'tokenmeter-records-bench-'));
  console.log(`${WORKERS} workers x ${RECORDS} records`);
  console.log('mode        worker us/rec  primary us/rec  records/s');
  for (const mode of ['own-file', 'one-writer', 'own-file', 'one-writer'] as const)
    await runMode(mode, folder);
  rmSync(folder, { recursive: true, force: true });
}
