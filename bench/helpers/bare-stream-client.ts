// The baseline of bench/loadgen-cost.ts: the least a streaming load generator can do. It sends `--requests`
// streamed chat requests, at most `--concurrency` at a time, on one undici Pool, and reads each answer's bytes
// only to drop them: no parsing, no timing, no records. Run as its own process so its CPU and memory are its own.
import { parseArgs } from 'node:util';
import { Pool } from 'undici';

const { values } = parseArgs({
  options: {
    url: { type: 'string' },
    requests: { type: 'string', default: '1000' },
    concurrency: { type: 'string', default: '64' },
    'prompt-words': { type: 'string', default: '64' },
    'output-tokens': { type: 'string', default: '64' },
  },
});
const target = new URL(values.url ?? '');
const total = Number(values.requests);
const concurrency = Number(values.concurrency);
const pool = new Pool(target.origin, { connections: concurrency, pipelining: 1 });
const body = JSON.stringify({
  model: 'tokenmeter/sim-7b',
  messages: [
    { role: 'user', content: Array.from({ length: Number(values['prompt-words']) }, () => 'word').join(' ') },
  ],
  max_tokens: Number(values['output-tokens']),
  ignore_eos: true,
  stream: true,
  stream_options: { include_usage: true },
});

let next = 0;
let failed = 0;
async function worker(): Promise<void> {
  while (next < total) {
    next++;
    const res = await pool.request({
      path: '/v1/chat/completions',
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    if (res.statusCode !== 200) failed++;
    for await (const _ of res.body) {
      // dropped
    }
  }
}
await Promise.all(Array.from({ length: concurrency }, worker));
await pool.close();
if (failed > 0) console.error(`${failed} requests failed`);
