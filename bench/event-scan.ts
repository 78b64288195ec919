// What the event scan (src/protocols/event-scan.ts) saves per event: each protocol's classifier with the scan against
// the same classifier with every event JSON.parsed, on the content deltas the real servers send (vLLM's chat chunk,
// OpenAI's, a completions chunk, a Responses text delta, an Anthropic text delta), then the whole meter (SSE parsing,
// classifying, figures) fed a 200-chunk chat stream with either classifier. Rounds alternate between the two so a
// noisy box slows both alike; the ratio is of the medians. Not part of `npm test`. Run from the repository root:
//
//   npm run build && node dist/bench/event-scan.js [rounds, default 15]
import { performance } from 'node:perf_hooks';
import type { EventClassifier } from '../src/measure/answer-facts.js';
import { StreamMeter } from '../src/measure/stream-meter.js';
import {
  anthropicMessagesClassifier,
  anthropicMessagesParsingClassifier,
} from '../src/protocols/anthropic-messages/stream-classifier.js';
import {
  openAiChatClassifier,
  openAiChatParsingClassifier,
} from '../src/protocols/openai-chat/stream-classifier.js';
import {
  openAiCompletionsClassifier,
  openAiCompletionsParsingClassifier,
} from '../src/protocols/openai-completions/stream-classifier.js';
import {
  openAiResponsesClassifier,
  openAiResponsesParsingClassifier,
} from '../src/protocols/openai-responses/stream-classifier.js';
import type { SseEvent } from '../src/sse/sse-parser.js';

const rounds = Number(process.argv[2] ?? 15);
const WORDS = [' the', ' model', ' answered', ',', ' 42', ' "quoted"', ' café', ' 世界'];
const EVENTS_PER_CASE = 2000;

function events(make: (text: string, i: number) => string, type?: string): SseEvent[] {
  return Array.from({ length: EVENTS_PER_CASE }, (_, i) => ({
    event: type,
    data: make(WORDS[i % WORDS.length] as string, i),
    id: undefined,
    startByte: 0,
    endByte: 0,
  }));
}

const vllmChat = (text: string, i: number): string =>
  JSON.stringify({
    id: 'chatcmpl-8f1d2c3b4a5e6f708192a3b4c5d6e7f8',
    object: 'chat.completion.chunk',
    created: 1733312000 + i,
    model: 'meta-llama/Llama-3.1-8B-Instruct',
    choices: [{ index: 0, delta: { content: text }, logprobs: null, finish_reason: null }],
  });

interface Case {
  readonly name: string;
  readonly scanning: EventClassifier;
  readonly parsing: EventClassifier;
  readonly events: readonly SseEvent[];
}

const CASES: readonly Case[] = [
  {
    name: 'vLLM chat content delta',
    scanning: openAiChatClassifier,
    parsing: openAiChatParsingClassifier,
    events: events(vllmChat),
  },
  {
    name: 'vLLM reasoning delta',
    scanning: openAiChatClassifier,
    parsing: openAiChatParsingClassifier,
    events: events((text, i) =>
      JSON.stringify({
        id: 'chatcmpl-8f1d',
        object: 'chat.completion.chunk',
        created: 1733312000 + i,
        model: 'Qwen/Qwen3-8B',
        choices: [{ index: 0, delta: { reasoning_content: text }, logprobs: null, finish_reason: null }],
      }),
    ),
  },
  {
    name: 'OpenAI chat content delta',
    scanning: openAiChatClassifier,
    parsing: openAiChatParsingClassifier,
    events: events((text, i) =>
      JSON.stringify({
        id: 'chatcmpl-B1xYz',
        object: 'chat.completion.chunk',
        created: 1733312000 + i,
        model: 'gpt-4o-mini-2024-07-18',
        service_tier: 'default',
        system_fingerprint: 'fp_0ba0d124f1',
        choices: [{ index: 0, delta: { content: text }, logprobs: null, finish_reason: null }],
        usage: null,
        obfuscation: 'k3VZ',
      }),
    ),
  },
  {
    name: 'completions text chunk',
    scanning: openAiCompletionsClassifier,
    parsing: openAiCompletionsParsingClassifier,
    events: events((text, i) =>
      JSON.stringify({
        id: 'cmpl-1',
        object: 'text_completion',
        created: 1733312000 + i,
        model: 'm',
        choices: [{ index: 0, text, logprobs: null, finish_reason: null, stop_reason: null }],
      }),
    ),
  },
  {
    name: 'Responses output_text delta',
    scanning: openAiResponsesClassifier,
    parsing: openAiResponsesParsingClassifier,
    events: events(
      (text, i) =>
        JSON.stringify({
          type: 'response.output_text.delta',
          sequence_number: i,
          item_id: 'msg_68a1',
          output_index: 0,
          content_index: 0,
          delta: text,
          logprobs: [],
        }),
      'response.output_text.delta',
    ),
  },
  {
    name: 'Anthropic text_delta',
    scanning: anthropicMessagesClassifier,
    parsing: anthropicMessagesParsingClassifier,
    events: events(
      (text) =>
        JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }),
      'content_block_delta',
    ),
  },
];

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** Nanoseconds per event of `classifier` over `list`, repeated until about 20 ms went by. */
function nsPerEvent(classifier: EventClassifier, list: readonly SseEvent[]): number {
  let classified = 0;
  let sink = 0;
  const start = performance.now();
  do {
    for (const event of list) if (classifier.classify(event).contentText !== undefined) sink++;
    classified += list.length;
  } while (performance.now() - start < 20);
  if (sink === 0) throw new Error('no event carried content: the bench measures nothing');
  return ((performance.now() - start) * 1e6) / classified;
}

function compare(name: string, scanning: () => number, parsing: () => number): void {
  const scanned: number[] = [];
  const parsed: number[] = [];
  for (let round = 0; round < rounds; round++) {
    // Alternate which goes first, so neither always runs on a warmer (or a busier) box.
    if (round % 2 === 0) {
      scanned.push(scanning());
      parsed.push(parsing());
    } else {
      parsed.push(parsing());
      scanned.push(scanning());
    }
  }
  const s = median(scanned);
  const p = median(parsed);
  console.log(
    `${name.padEnd(34)} ${p.toFixed(0).padStart(7)} ${s.toFixed(0).padStart(7)} ${(p / s).toFixed(2).padStart(7)}x`,
  );
}

console.log(`${rounds} alternated rounds, medians; ns per event`);
console.log(
  `${'classify one event'.padEnd(34)} ${'parse'.padStart(7)} ${'scan'.padStart(7)} ${'gain'.padStart(8)}`,
);
for (const c of CASES) {
  // Warm both paths before timing either.
  nsPerEvent(c.scanning, c.events);
  nsPerEvent(c.parsing, c.events);
  compare(
    c.name,
    () => nsPerEvent(c.scanning, c.events),
    () => nsPerEvent(c.parsing, c.events),
  );
}

// The whole meter: one body of 200 vLLM chat chunks (a role-only delta first, the finish, usage and [DONE] last),
// fed in 4 KiB chunks as a socket would hand them over.
const streamEvents = [
  JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }],
  }),
  ...Array.from({ length: 198 }, (_, i) => vllmChat(WORDS[i % WORDS.length] as string, i)),
  JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: [{ index: 0, delta: { content: '' }, logprobs: null, finish_reason: 'stop' }],
  }),
  JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: [],
    usage: { prompt_tokens: 10, completion_tokens: 198, total_tokens: 208 },
  }),
];
const body = Buffer.from(`${streamEvents.map((e) => `data: ${e}\n\n`).join('')}data: [DONE]\n\n`);
const bodyChunks: Buffer[] = [];
for (let at = 0; at < body.length; at += 4096) bodyChunks.push(body.subarray(at, at + 4096));

function nsPerStreamEvent(classifier: EventClassifier): number {
  let streams = 0;
  const start = performance.now();
  do {
    const meter = new StreamMeter({ classifier });
    for (const chunk of bodyChunks) meter.onBytes(chunk, 1);
    meter.end(2);
    if (meter.result().contentEvents !== 198) throw new Error('the stream was not metered as written');
    streams++;
  } while (performance.now() - start < 20);
  return ((performance.now() - start) * 1e6) / (streams * (streamEvents.length + 1));
}

console.log('');
console.log(
  `${'meter a 200-chunk chat stream'.padEnd(34)} ${'parse'.padStart(7)} ${'scan'.padStart(7)} ${'gain'.padStart(8)}`,
);
nsPerStreamEvent(openAiChatClassifier);
nsPerStreamEvent(openAiChatParsingClassifier);
compare(
  'per event, SSE parsing included',
  () => nsPerStreamEvent(openAiChatClassifier),
  () => nsPerStreamEvent(openAiChatParsingClassifier),
);
