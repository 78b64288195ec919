// The scan (src/protocols/event-scan.ts) against JSON.parse: every classifier's scan, where it decides, gives the
// facts the JSON.parse path gives, on a corpus of events in the shapes real servers send and on seeded random
// events built to hit the scan's edges (escaped keys, duplicate members, whitespace, escapes, broken JSON).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EventClassifier } from '../../src/measure/answer-facts.js';
import {
  anthropicMessagesClassifier,
  anthropicMessagesParsingClassifier,
  anthropicMessagesScan,
} from '../../src/protocols/anthropic-messages/stream-classifier.js';
import { type EventScan, MAX_SCANNED_CHARS } from '../../src/protocols/event-scan.js';
import {
  openAiChatClassifier,
  openAiChatParsingClassifier,
  openAiChatScan,
} from '../../src/protocols/openai-chat/stream-classifier.js';
import {
  openAiCompletionsClassifier,
  openAiCompletionsParsingClassifier,
  openAiCompletionsScan,
} from '../../src/protocols/openai-completions/stream-classifier.js';
import {
  openAiResponsesClassifier,
  openAiResponsesParsingClassifier,
  openAiResponsesScan,
} from '../../src/protocols/openai-responses/stream-classifier.js';
import { SeededRandom } from '../../src/shared/random.js';
import { sseEvent } from '../measure/classify.js';

interface Protocol {
  readonly name: string;
  readonly scan: EventScan;
  readonly parsing: EventClassifier;
  readonly classifier: EventClassifier;
}

const CHAT: Protocol = {
  name: 'chat',
  scan: openAiChatScan,
  parsing: openAiChatParsingClassifier,
  classifier: openAiChatClassifier,
};
const COMPLETIONS: Protocol = {
  name: 'completions',
  scan: openAiCompletionsScan,
  parsing: openAiCompletionsParsingClassifier,
  classifier: openAiCompletionsClassifier,
};
const RESPONSES: Protocol = {
  name: 'responses',
  scan: openAiResponsesScan,
  parsing: openAiResponsesParsingClassifier,
  classifier: openAiResponsesClassifier,
};
const MESSAGES: Protocol = {
  name: 'messages',
  scan: anthropicMessagesScan,
  parsing: anthropicMessagesParsingClassifier,
  classifier: anthropicMessagesClassifier,
};

/** One event: its data (and `event:` field), and whether the scan is meant to decide it (the hot shapes). */
interface CorpusEvent {
  readonly data: string;
  readonly event?: string;
  readonly scanned: boolean;
}

const chunk = (choices: string, extra = ''): string =>
  `{"id":"chatcmpl-9f2c","object":"chat.completion.chunk","created":1733312000,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[${choices}]${extra}}`;
const choice = (delta: string, finish = 'null'): string =>
  `{"index":0,"delta":${delta},"logprobs":null,"finish_reason":${finish}}`;

const CHAT_CORPUS: readonly CorpusEvent[] = [
  // vLLM: the role-only first delta, content deltas, the finish, the usage chunk.
  { data: chunk(choice('{"role":"assistant","content":""}')), scanned: true },
  { data: chunk(choice('{"content":"Hello"}')), scanned: true },
  { data: chunk(choice('{"content":" world"}'), ',"usage":null'), scanned: true },
  { data: chunk(choice('{"content":""}', '"stop"')), scanned: false },
  { data: chunk(choice('{}', '"length"')), scanned: false },
  {
    data: chunk(
      '',
      ',"usage":{"prompt_tokens":12,"total_tokens":19,"completion_tokens":7,"prompt_tokens_details":{"cached_tokens":4}}',
    ),
    scanned: false,
  },
  // vLLM's continuous_usage_stats: a running usage on every content chunk.
  {
    data: chunk(
      choice('{"content":"a"}'),
      ',"usage":{"prompt_tokens":5,"total_tokens":6,"completion_tokens":1}',
    ),
    scanned: false,
  },
  // Reasoning, in both spellings, alone, together and beside a null content (DeepSeek).
  { data: chunk(choice('{"reasoning_content":"Let me think"}')), scanned: true },
  { data: chunk(choice('{"reasoning":"Let me think"}')), scanned: true },
  { data: chunk(choice('{"reasoning":"same","reasoning_content":"same"}')), scanned: false },
  { data: chunk(choice('{"content":null,"reasoning_content":"hmm"}')), scanned: false },
  { data: chunk(choice('{"role":"assistant","content":null,"reasoning":"step 1"}')), scanned: false },
  // OpenAI's own chunks: service tier, fingerprint, the role-only delta with a null refusal, obfuscation.
  {
    data: '{"id":"chatcmpl-B1","object":"chat.completion.chunk","created":1733312000,"model":"gpt-4o-mini-2024-07-18","service_tier":"default","system_fingerprint":"fp_0ba0d124f1","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":"Xy"}',
    scanned: false,
  },
  {
    data: '{"id":"chatcmpl-B1","object":"chat.completion.chunk","created":1733312000,"model":"gpt-4o-mini-2024-07-18","service_tier":"default","system_fingerprint":"fp_0ba0d124f1","choices":[{"index":0,"delta":{"content":"Hi"},"logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":"k3VZ"}',
    scanned: true,
  },
  { data: chunk(choice('{"refusal":"I can\'t help with that."}')), scanned: true },
  // Tool calls: the first delta names the function, the next ones carry argument fragments.
  {
    data: chunk(
      choice(
        '{"tool_calls":[{"index":0,"id":"call_abc","type":"function","function":{"name":"get_weather","arguments":""}}]}',
      ),
    ),
    scanned: false,
  },
  {
    data: chunk(choice('{"tool_calls":[{"index":0,"function":{"arguments":"{\\"city\\": \\"Par"}}]}')),
    scanned: false,
  },
  { data: chunk(choice('{"function_call":{"name":"f","arguments":"{}"}}')), scanned: false },
  // Escaped quotes and backslashes, \u escapes (a surrogate pair among them), raw non-ASCII.
  { data: chunk(choice('{"content":"He said \\"hi\\" in C:\\\\temp\\\\"}')), scanned: true },
  { data: chunk(choice('{"content":"caf\\u00e9 \\ud83d\\ude00 \\n\\t\\/"}')), scanned: true },
  { data: chunk(choice('{"content":"世界 👍 ñ Ελληνικά"}')), scanned: true },
  { data: chunk(choice('{"content":"lone \\ud800 surrogate"}')), scanned: true },
  // Python's json.dumps spacing.
  {
    data: '{"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m", "choices": [{"index": 0, "delta": {"content": "spaced"}, "finish_reason": null}]}',
    scanned: true,
  },
  // Two choices (n=2), logprobs: JSON.parse decides.
  {
    data: chunk(`${choice('{"content":"a"}')},{"index":1,"delta":{"content":"b"},"finish_reason":null}`),
    scanned: false,
  },
  {
    data: chunk(
      '{"index":0,"delta":{"content":"Hi"},"logprobs":{"content":[{"token":"Hi","logprob":-0.1,"bytes":[72,105],"top_logprobs":[]}]},"finish_reason":null}',
    ),
    scanned: false,
  },
  // Errors inside a 200 stream: OpenAI's envelope, older vLLM's bare object, an error event, error: null.
  {
    data: '{"error":{"message":"The server is overloaded","type":"server_error","code":503}}',
    scanned: false,
  },
  {
    data: '{"object":"error","message":"max_tokens too large","type":"BadRequestError","param":null,"code":400}',
    scanned: false,
  },
  { data: chunk(choice('{"content":"x"}'), ',"error":{"message":"cut"}'), scanned: false },
  { data: chunk(choice('{"content":"x"}'), ',"error":null'), scanned: true },
  {
    data: '{"object":"error","choices":[{"index":0,"delta":{"content":"x"},"finish_reason":null}]}',
    scanned: false,
  },
  { data: 'upstream timed out', event: 'error', scanned: false },
  { data: chunk(choice('{"content":"x"}')), event: 'error', scanned: false },
  { data: '[DONE]', scanned: false },
  // Keys the scan cannot read plainly, duplicates, broken JSON.
  { data: chunk(choice('{"\\u0063ontent":"escaped key"}')), scanned: false },
  { data: chunk(choice('{"content":"first","content":"second"}')), scanned: false },
  { data: chunk(choice('{"content":"a"}'), ',"\\u0075sage":{"completion_tokens":3}'), scanned: false },
  { data: '{"choices":[{"delta":{"content":"raw\ttab"}}]}', scanned: false },
  { data: '{"choices":[{"delta":{"content":"cut', scanned: false },
  { data: '{"choices":[{"delta":{"content":"x"}}]} trailing', scanned: false },
  { data: '["not an object"]', scanned: false },
  { data: '{"choices":[{"delta":{"content":"x"},"index":01}]}', scanned: false },
];

const completion = (text: string, finish = 'null'): string =>
  `{"id":"cmpl-1","object":"text_completion","created":1733312000,"model":"m","choices":[{"index":0,"text":${text},"logprobs":null,"finish_reason":${finish},"stop_reason":null}]}`;

const COMPLETIONS_CORPUS: readonly CorpusEvent[] = [
  { data: completion('" the"'), scanned: true },
  { data: completion('"\\"quoted\\" \\\\ \\u00e9 世界"'), scanned: true },
  { data: completion('""'), scanned: true },
  { data: completion('"."', '"length"'), scanned: false },
  {
    data: '{"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":3,"total_tokens":8,"completion_tokens":5}}',
    scanned: false,
  },
  { data: '{"error":{"message":"bad"}}', scanned: false },
  { data: '[DONE]', scanned: false },
  { data: completion('null'), scanned: false },
];

const RESPONSES_CORPUS: readonly CorpusEvent[] = [
  {
    event: 'response.created',
    data: '{"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response","status":"in_progress","output":[],"usage":null}}',
    scanned: false,
  },
  {
    event: 'response.output_item.added',
    data: '{"type":"response.output_item.added","sequence_number":2,"output_index":0,"item":{"id":"msg_1","type":"message","status":"in_progress","content":[],"role":"assistant"}}',
    scanned: false,
  },
  {
    event: 'response.output_text.delta',
    data: '{"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hello","logprobs":[],"obfuscation":"ab"}',
    scanned: true,
  },
  {
    event: 'response.output_text.delta',
    data: '{"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"\\"q\\" \\\\ \\u00e9 👍"}',
    scanned: true,
  },
  {
    event: 'response.output_text.delta',
    data: '{"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":""}',
    scanned: true,
  },
  {
    event: 'response.reasoning_summary_text.delta',
    data: '{"type":"response.reasoning_summary_text.delta","item_id":"rs_1","output_index":0,"summary_index":0,"delta":"Thinking"}',
    scanned: true,
  },
  {
    event: 'response.function_call_arguments.delta',
    data: '{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":1,"delta":"{\\"city\\":"}',
    scanned: true,
  },
  {
    event: 'response.output_text.done',
    data: '{"type":"response.output_text.done","item_id":"msg_1","output_index":0,"content_index":0,"text":"Hello"}',
    scanned: false,
  },
  {
    event: 'response.completed',
    data: '{"type":"response.completed","response":{"id":"resp_1","status":"completed","usage":{"input_tokens":10,"input_tokens_details":{"cached_tokens":2},"output_tokens":5,"total_tokens":15}}}',
    scanned: false,
  },
  {
    event: 'response.incomplete',
    data: '{"type":"response.incomplete","response":{"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"usage":{"input_tokens":1,"output_tokens":2}}}',
    scanned: false,
  },
  {
    event: 'response.failed',
    data: '{"type":"response.failed","response":{"status":"failed","error":{"code":"server_error","message":"boom"}}}',
    scanned: false,
  },
  {
    event: 'error',
    data: '{"type":"error","code":"rate_limit","message":"slow down","param":null}',
    scanned: false,
  },
  { event: 'error', data: 'not json', scanned: false },
  // The delta before the type, a delta that is not a string, the type only in the event field.
  { data: '{"delta":"x","type":"response.output_text.delta"}', scanned: false },
  { data: '{"type":"response.output_text.delta","delta":{"text":"x"}}', scanned: false },
  { event: 'response.output_text.delta', data: '{"delta":"from the event field"}', scanned: false },
  { data: '{"type":"response.output_text.delta","delta":"a","delta":"b"}', scanned: false },
];

const MESSAGES_CORPUS: readonly CorpusEvent[] = [
  {
    event: 'message_start',
    data: '{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-5","stop_reason":null,"usage":{"input_tokens":25,"cache_read_input_tokens":10,"cache_creation_input_tokens":0,"output_tokens":1}}}',
    scanned: false,
  },
  {
    event: 'content_block_start',
    data: '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}',
    scanned: false,
  },
  { event: 'ping', data: '{"type": "ping"}', scanned: false },
  {
    event: 'content_block_delta',
    data: '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}',
    scanned: true,
  },
  {
    event: 'content_block_delta',
    data: '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\\"q\\" \\\\ \\u00e9 世界 👍"}}',
    scanned: true,
  },
  {
    event: 'content_block_delta',
    data: '{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Let me see"}}',
    scanned: true,
  },
  {
    event: 'content_block_delta',
    data: '{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQBCgIYAhIM"}}',
    scanned: false,
  },
  {
    event: 'content_block_delta',
    data: '{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\\"location\\": \\"San"}}',
    scanned: true,
  },
  {
    event: 'content_block_delta',
    data: '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":""}}',
    scanned: true,
  },
  { event: 'content_block_stop', data: '{"type":"content_block_stop","index":0}', scanned: false },
  {
    event: 'message_delta',
    data: '{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":15}}',
    scanned: false,
  },
  { event: 'message_stop', data: '{"type":"message_stop"}', scanned: false },
  {
    event: 'error',
    data: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
    scanned: false,
  },
  // A text_delta whose text member is named for another type, the delta before the type, a thinking member beside.
  {
    data: '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","thinking":"not the text"}}',
    scanned: false,
  },
  { data: '{"delta":{"type":"text_delta","text":"x"},"type":"content_block_delta"}', scanned: false },
  {
    data: '{"type":"content_block_delta","delta":{"type":"text_delta","text":"a","thinking":"b"}}',
    scanned: false,
  },
  {
    data: '{"type":"content_block_delta","delta":{"type":"text_delta","text":"a","text":"b"}}',
    scanned: false,
  },
];

function checkAgreement(protocol: Protocol, data: string, eventField: string | undefined): boolean {
  const event = sseEvent(data, eventField);
  const reference = protocol.parsing.classify(event);
  const scanned = protocol.scan(event);
  const label = `${protocol.name}: ${eventField ?? ''} ${JSON.stringify(data).slice(0, 300)}`;
  if (scanned !== undefined) assert.deepEqual(scanned, reference, `scan and JSON.parse differ on ${label}`);
  assert.deepEqual(
    protocol.classifier.classify(event),
    reference,
    `classifier and JSON.parse differ on ${label}`,
  );
  return scanned !== undefined;
}

for (const [protocol, corpus] of [
  [CHAT, CHAT_CORPUS],
  [COMPLETIONS, COMPLETIONS_CORPUS],
  [RESPONSES, RESPONSES_CORPUS],
  [MESSAGES, MESSAGES_CORPUS],
] as const) {
  test(`${protocol.name}: on every corpus event the scan, where it decides, gives JSON.parse's facts`, () => {
    for (const entry of corpus) {
      const decided = checkAgreement(protocol, entry.data, entry.event);
      assert.equal(decided, entry.scanned, `scan ${decided ? 'decided' : 'passed on'} ${entry.data}`);
    }
  });
}

test('an event longer than MAX_SCANNED_CHARS is JSON.parsed, with the same facts', () => {
  const text = 'x'.repeat(MAX_SCANNED_CHARS);
  const event = sseEvent(chunk(choice(JSON.stringify({ content: text }))));
  assert.ok(event.data.length > MAX_SCANNED_CHARS);
  assert.deepEqual(openAiChatClassifier.classify(event), { contentText: text });
});

// --- Random events -------------------------------------------------------------------------------------------

/** A JSON value with objects as member lists, so duplicates and key spellings can be chosen. */
type Value =
  | null
  | boolean
  | number
  | string
  | Value[]
  | { readonly members: ReadonlyArray<[string, Value]> };

const TEXT_PIECES = [
  'a',
  'Hi',
  ' ',
  'word',
  '"',
  '\\',
  '/',
  'é',
  '世',
  '👍',
  '\n',
  '\t',
  '\u0001',
  '\ud800',
  '{',
  ']',
  ':',
];

class EventMaker {
  readonly #random: SeededRandom;

  constructor(seed: number) {
    this.#random = new SeededRandom(seed);
  }

  chance(p: number): boolean {
    return this.#random.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.#random.int(0, items.length - 1)] as T;
  }

  text(): string {
    let text = '';
    const pieces = this.#random.int(0, 4);
    for (let i = 0; i < pieces; i++) text += this.pick(TEXT_PIECES);
    return text;
  }

  scalar(): Value {
    return this.pick<() => Value>([
      () => null,
      () => this.text(),
      () => this.#random.int(-5, 5000),
      () => this.pick([0.5, -0, 1e21, 3.25e-7]),
      () => this.chance(0.5),
      () => [],
      () => ({ members: [] }),
    ])();
  }

  /** A string-ish value for a member a classifier reads: mostly text, sometimes not a string. */
  textOrOther(): Value {
    return this.chance(0.8) ? this.text() : this.scalar();
  }

  /** Members in random order, with random extra ones and, now and then, one of them twice. */
  members(wanted: ReadonlyArray<[string, Value]>, keepOrder = false): Array<[string, Value]> {
    const members: Array<[string, Value]> = [...wanted];
    if (!keepOrder && this.chance(0.3)) members.reverse();
    const extras = this.#random.int(0, 2);
    for (let i = 0; i < extras; i++) {
      const at = this.#random.int(0, members.length);
      members.splice(at, 0, [this.pick(['index', 'id', 'model', 'x', 'logprobs', 'created']), this.scalar()]);
    }
    if (members.length > 0 && this.chance(0.08)) {
      const twice = this.pick(members);
      members.splice(this.#random.int(0, members.length), 0, [twice[0], this.scalar()]);
    }
    return members;
  }

  chat(choiceText: (maker: EventMaker) => Array<[string, Value]>): Value {
    const choices: Value[] = [];
    const count = this.pick([1, 1, 1, 1, 1, 1, 0, 2]);
    for (let i = 0; i < count; i++) {
      const fields = choiceText(this);
      fields.push(['index', i]);
      if (this.chance(0.8))
        fields.push(['finish_reason', this.chance(0.85) ? null : this.pick(['stop', 'length', 7])]);
      if (this.chance(0.3))
        fields.push(['logprobs', this.chance(0.8) ? null : { members: [['content', []]] }]);
      choices.push({ members: this.members(fields) });
    }
    const top: Array<[string, Value]> = [
      ['id', 'chatcmpl-1'],
      [
        'object',
        this.pick(['chat.completion.chunk', 'chat.completion.chunk', 'chat.completion.chunk', 'error', 'x']),
      ],
      ['choices', this.chance(0.95) ? choices : this.scalar()],
    ];
    if (this.chance(0.3))
      top.push([
        'usage',
        this.chance(0.6)
          ? null
          : {
              members: [
                ['completion_tokens', 3],
                ['prompt_tokens', 2],
              ],
            },
      ]);
    if (this.chance(0.1))
      top.push(['error', this.chance(0.5) ? null : { members: [['message', this.text()]] }]);
    return { members: this.members(top) };
  }

  chatChoice(): Array<[string, Value]> {
    const delta: Array<[string, Value]> = [];
    for (const key of ['role', 'content', 'reasoning_content', 'reasoning', 'refusal']) {
      if (this.chance(key === 'content' ? 0.7 : 0.15))
        delta.push([key, key === 'role' ? 'assistant' : this.textOrOther()]);
    }
    if (this.chance(0.05)) {
      delta.push([
        'tool_calls',
        [
          {
            members: [
              ['index', 0],
              ['function', { members: [['arguments', this.text()]] }],
            ],
          },
        ],
      ]);
    }
    return [['delta', this.chance(0.95) ? { members: this.members(delta) } : this.scalar()]];
  }

  completionChoice(): Array<[string, Value]> {
    return [['text', this.textOrOther()]];
  }

  responses(): Value {
    const type = this.pick([
      'response.output_text.delta',
      'response.reasoning_text.delta',
      'response.refusal.delta',
      'response.function_call_arguments.delta',
      'response.output_text.done',
      'response.in_progress',
    ]);
    const members: Array<[string, Value]> = [['type', type]];
    if (this.chance(0.95)) members.push(['delta', this.textOrOther()]);
    return { members: this.members(members, this.chance(0.7)) };
  }

  messages(): Value {
    const deltaType = this.pick(['text_delta', 'thinking_delta', 'input_json_delta', 'signature_delta']);
    const delta: Array<[string, Value]> = [['type', deltaType]];
    for (const key of ['text', 'thinking', 'partial_json']) {
      if (this.chance(key === { text_delta: 'text', thinking_delta: 'thinking' }[deltaType] ? 0.9 : 0.1)) {
        delta.push([key, this.textOrOther()]);
      }
    }
    if (deltaType === 'input_json_delta' && this.chance(0.9)) delta.push(['partial_json', this.text()]);
    const type = this.pick(['content_block_delta', 'content_block_delta', 'message_delta', 'ping']);
    const members: Array<[string, Value]> = [
      ['type', type],
      ['delta', { members: this.members(delta, this.chance(0.7)) }],
    ];
    return { members: this.members(members, this.chance(0.7)) };
  }

  /** JSON text of `value`, with random whitespace, keys now and then spelled with an escape, string escapes. */
  json(value: Value): string {
    const ws = (): string => (this.chance(0.1) ? this.pick([' ', '  ', '\n', '\t', '\r\n']) : '');
    if (value === null || typeof value === 'boolean') return String(value);
    if (typeof value === 'number')
      return Object.is(value, -0) && this.chance(0.5) ? '-0' : JSON.stringify(value);
    if (typeof value === 'string') return this.string(value);
    if (Array.isArray(value))
      return `[${ws()}${value.map((v) => this.json(v)).join(`${ws()},${ws()}`)}${ws()}]`;
    const members = value.members.map(
      ([key, v]) => `${ws()}${this.key(key)}${ws()}:${ws()}${this.json(v)}${ws()}`,
    );
    return `{${members.join(',')}}`;
  }

  key(key: string): string {
    if (key.length > 0 && this.chance(0.04)) {
      return `"\\u${(key.codePointAt(0) as number).toString(16).padStart(4, '0')}${key.slice(1)}"`;
    }
    return JSON.stringify(key);
  }

  string(value: string): string {
    if (!this.chance(0.2)) return JSON.stringify(value);
    // Every character as a \u escape, or a raw control character left in (invalid JSON).
    if (this.chance(0.5)) {
      return `"${[...value].map((c) => `\\u${(c.charCodeAt(0) as number).toString(16).padStart(4, '0')}`).join('')}"`;
    }
    return `"${value.replace(/["\\]/g, '\\$&')}"`;
  }

  /** Now and then broken: cut short, or with a stray byte. */
  damaged(text: string): string {
    if (this.chance(0.03)) return text.slice(0, this.#random.int(0, text.length - 1));
    if (this.chance(0.02)) return `${text}x`;
    return text;
  }
}

test("on 20,000 seeded random events the scan, where it decides, gives JSON.parse's facts", () => {
  const makers: ReadonlyArray<[Protocol, (maker: EventMaker) => Value]> = [
    [CHAT, (m) => m.chat(() => m.chatChoice())],
    [COMPLETIONS, (m) => m.chat(() => m.completionChoice())],
    [RESPONSES, (m) => m.responses()],
    [MESSAGES, (m) => m.messages()],
  ];
  for (const [protocol, make] of makers) {
    const maker = new EventMaker(19_000 + protocol.name.length);
    let decided = 0;
    const events = 5000;
    for (let i = 0; i < events; i++) {
      const data = maker.damaged(maker.json(make(maker)));
      const eventField = maker.chance(0.05)
        ? maker.pick(['error', 'message', 'content_block_delta'])
        : undefined;
      if (checkAgreement(protocol, data, eventField)) decided++;
    }
    // Enough of them hit the scan that the comparison means something, and not all (the rest go to JSON.parse).
    assert.ok(
      decided > events / 20 && decided < events,
      `${protocol.name}: the scan decided ${decided} of ${events}`,
    );
  }
});
