// One shard of a load-generator capacity run (bench/loadgen-workers.ts), run either as a child process (config
// as argv[2], messages over IPC) or as a worker thread (config as workerData, messages over parentPort): the same
// code either way, so the two transports are compared on equal terms. It builds its slice of the seeded schedule,
// says ready, waits for the start instant, runs the open-loop engine and answers with its records' figures.
import { performance } from 'node:perf_hooks';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { arrivalSchedule } from '../../loadgen/arrivals.js';
import { prepareRequests } from '../../loadgen/bench/prepare-requests.js';
import { sampleRandom } from '../../loadgen/datasets/random-dataset.js';
import { createOpenLoopEngine } from '../../loadgen/engine/open-loop-engine.js';
import { scheduleLagMs } from '../../loadgen/record.js';
import { takeShard } from '../../loadgen/shards/shard-spec.js';
import { builtinTokenizer } from '../../loadgen/tokenizer/tokenizer.js';

export interface ShardJob {
  readonly url: string;
  readonly model: string;
  readonly count: number;
  /** Requests per second of the whole run. */
  readonly rate: number;
  readonly outputTokens: number;
  readonly index: number;
  readonly shards: number;
  /** Requests due before this many ms after t = 0 are sent but their lag is not counted (warm-up). */
  readonly warmupMs: number;
}

export interface ShardFigures {
  lagsMs: number[];
  ok: number;
  sent: number;
}

type Message = { type: 'ready' } | { type: 'done'; figures: ShardFigures };

const job: ShardJob = isMainThread
  ? (JSON.parse(process.argv[2] ?? '{}') as ShardJob)
  : (workerData as ShardJob);
const post = (message: Message): void => {
  if (isMainThread) process.send?.(message);
  else parentPort?.postMessage(message);
};
const onStart = (listener: (epochMs: number) => void): void => {
  const handle = (message: { epochMs: number }): void => listener(message.epochMs);
  if (isMainThread) process.once('message', handle);
  else parentPort?.once('message', handle);
};

const dataset = sampleRandom({
  numPrompts: job.count,
  seed: 1,
  tokenizer: builtinTokenizer,
  inputLen: 16,
  outputLen: job.outputTokens,
});
const requests = prepareRequests(
  dataset.requests,
  {
    protocol: 'openai-chat',
    model: job.model,
    chatContent: 'string',
    maxTokensField: 'max_tokens',
    ignoreEos: true,
    includeUsage: true,
    temperature: 0,
    extraBody: {},
  },
  'cap-',
);
const offsets = arrivalSchedule(job.count, { requestRate: job.rate, burstiness: 1, seed: 1 }).offsetsMs;
const shard = { index: job.index, count: job.shards };
onStart(async (epochMs) => {
  const figures: ShardFigures = { lagsMs: [], ok: 0, sent: 0 };
  await createOpenLoopEngine({
    offsetsMs: takeShard(offsets, shard),
    startAtMs: epochMs - performance.timeOrigin,
  }).run({
    target: {
      origin: job.url,
      path: '/v1/chat/completions',
      headers: { 'content-type': 'application/json' },
      protocol: 'openai-chat',
    },
    requests: takeShard(requests, shard),
    tokenizer: builtinTokenizer,
    keepText: false,
    idleTimeoutMs: 60_000,
    errorBodyBytes: 256,
    signal: new AbortController().signal,
    onRecord: (record) => {
      const lag = scheduleLagMs(record);
      // A fresh process's first requests pay for compiling the hot path and opening the pool's connections:
      // the steady rate is what a run of more than a few seconds lives at.
      if (lag !== null && record.intendedOffsetMs >= job.warmupMs) {
        figures.lagsMs.push(lag);
        figures.sent++;
      }
      if (record.outcome === 'ok') figures.ok++;
    },
  });
  post({ type: 'done', figures });
  if (isMainThread) process.disconnect?.();
});
post({ type: 'ready' });
