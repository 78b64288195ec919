// Time benchmark of the key scrubber's per-chunk cost (src/gateway/exchange/key-scrubber.ts), the work a keyed
// gateway adds to every body chunk it forwards. Not part of `npm test`. Run from the repository root:
//
//   npm run build && node dist/bench/key-scrubber-chunks.js [chunks per case, default 200000]
//
// Each case pushes the same chunk through one response's ScrubbedStream that many times, with one key of 51 bytes
// (an `sk-proj-` key with a `/`, as some providers issue), and prints the mean time per chunk over five rounds
// (the first, warming up, left out) and the chunk's size. The cases are what a gateway forwards: an SSE chat chunk
// with plain text, one whose text holds JSON escapes (`\n`, `\"`, `\u00e9`), a 4 KiB non-streamed answer, and a
// chunk holding the key spelled with escapes.
import { performance } from 'node:perf_hooks';
import { KeyScrubber } from '../src/gateway/exchange/key-scrubber.js';

const chunksPerCase = Number(process.argv[2] ?? 200_000);
const KEY = 'sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv/Wx1yZa4bCd7eFg0h';

function sse(content: string): Buffer {
  const chunk = {
    id: 'chatcmpl-9d1f0c2a',
    object: 'chat.completion.chunk',
    created: 1733580000,
    model: 'gpt-4o-mini',
    choices: [{ index: 0, delta: { content }, finish_reason: null }],
  };
  return Buffer.from(`data: ${JSON.stringify(chunk)}\n\n`);
}

const escapedKey = JSON.stringify(KEY).slice(1, -1).replace('/', '\\/').replace('A', '\\u0041');
const CASES: readonly [string, Buffer][] = [
  ['SSE chunk, plain text', sse(' the quick brown fox')],
  ['SSE chunk, escapes in its text', sse('line one\nline "two" caf\u00e9')],
  [
    '4 KiB JSON answer with escapes',
    Buffer.from(
      JSON.stringify({ choices: [{ message: { content: 'word\n'.repeat(800) } }] }).replace(/é/g, '\\u00e9'),
    ),
  ],
  ['SSE chunk quoting the key with escapes', Buffer.from(`data: {"error":"bad key ${escapedKey}"}\n\n`)],
];

const scrubber = new KeyScrubber([KEY]);
for (const [name, chunk] of CASES) {
  const stream = scrubber.stream();
  const rounds: number[] = [];
  let out = 0;
  for (let round = 0; round < 6; round++) {
    const start = performance.now();
    for (let i = 0; i < chunksPerCase; i++) out += stream.push(chunk).length;
    rounds.push(((performance.now() - start) * 1000) / chunksPerCase);
  }
  const kept = rounds.slice(1);
  const mean = kept.reduce((a, b) => a + b, 0) / kept.length;
  console.log(
    `${name} (${chunk.length} B): ${mean.toFixed(3)} us per chunk (rounds ${kept.map((r) => r.toFixed(3)).join(', ')}); ${out > 0 ? 'ok' : ''}`,
  );
}
