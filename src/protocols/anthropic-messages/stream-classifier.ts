// Anthropic Messages streams (`/v1/messages`). Content is a `content_block_delta` carrying text, thinking or tool
// input (`text_delta`, `thinking_delta`, `input_json_delta`). `message_start`, `content_block_start` and `ping`
// arrive before the model produced anything: stamping the first token on them gives a fake ~1 ms TTFT.
// Usage comes in two halves: input tokens in `message_start`, output tokens (cumulative) in `message_delta`.

import {
  capErrorMessage,
  DONE_FACTS,
  type EventClassifier,
  type EventFacts,
  errorJsonText,
  type MutableFacts,
  NO_FACTS,
  UNPARSEABLE_FACTS,
} from '../../measure/answer-facts.js';
import {
  countField,
  field,
  isJsonObject,
  type JsonObject,
  parseJsonObject,
  stringField,
} from '../../shared/json-object.js';
import type { SseEvent } from '../../sse/sse-parser.js';
import {
  COMMA,
  contentFacts,
  type EventScan,
  ignoredMember,
  JSON_STRING,
  literal,
  membersAfter,
  membersBefore,
  named,
  object,
  stringValue,
  whole,
  withScan,
} from '../event-scan.js';
import { addUsageFacts, type UsageReader, usageReader } from '../usage.js';

const DELTA_TEXT_FIELDS: Readonly<Record<string, string>> = {
  text_delta: 'text',
  thinking_delta: 'thinking',
  input_json_delta: 'partial_json',
};
const DELTA_TYPES = Object.keys(DELTA_TEXT_FIELDS);
/** Extended thinking: the model's reasoning, streamed before its answer. */
const THINKING_DELTA = 'thinking_delta';

/** Every event JSON.parsed: the reference the scan is tested against. */
export const anthropicMessagesParsingClassifier: EventClassifier = {
  protocol: 'anthropic-messages',
  classify(event: SseEvent): EventFacts {
    const data = parseJsonObject(event.data);
    if (data === undefined) {
      return event.event === 'error' ? { errorMessage: capErrorMessage(event.data) } : UNPARSEABLE_FACTS;
    }
    const type = stringField(data, 'type') || event.event;
    switch (type) {
      case 'content_block_delta':
        return contentOf(field(data, 'delta'));
      case 'message_start':
        return messageStart(field(data, 'message'));
      case 'message_delta':
        return messageDelta(data);
      case 'message_stop':
        return DONE_FACTS;
      case 'content_block_start':
        return blockStart(data);
      case 'error':
        return { errorMessage: errorMessageOf(data, event.data) };
      default:
        // ping, content_block_stop and anything new: no measurement in them.
        return NO_FACTS;
    }
  },
};

// The scan (event-scan.ts) of a content_block_delta: `type` before `delta`, as Anthropic writes them; in the
// delta, its `type` before the text member that type names, and no other member contentOf reads. One capture per
// delta type, so the text read is always the one its type names.
const TOP_IGNORED = ignoredMember(['type', 'delta']);
const DELTA_IGNORED = ignoredMember(['type', ...Object.values(DELTA_TEXT_FIELDS)]);
const DELTA_BY_TYPE = Object.entries(DELTA_TEXT_FIELDS).map(
  ([type, textField]) =>
    `${membersBefore(DELTA_IGNORED)}${named('type')}${literal(type)}${membersAfter(DELTA_IGNORED)}${COMMA}` +
    `${named(textField)}(${JSON_STRING})${membersAfter(DELTA_IGNORED)}`,
);
const CONTENT_BLOCK_DELTA = whole(
  object(
    `${membersBefore(TOP_IGNORED)}${named('type')}${literal('content_block_delta')}${membersAfter(TOP_IGNORED)}` +
      `${COMMA}${named('delta')}${object(`(?:${DELTA_BY_TYPE.join('|')})`)}${membersAfter(TOP_IGNORED)}`,
  ),
);

export const anthropicMessagesScan: EventScan = (event) => {
  const match = CONTENT_BLOCK_DELTA.exec(event.data);
  if (match === null) return undefined;
  // One capture per delta type, in DELTA_TEXT_FIELDS' order: the thinking delta's is reasoning.
  for (const [i, type] of DELTA_TYPES.entries()) {
    const text = match[i + 1];
    if (text !== undefined) return contentFacts(stringValue(text), type === THINKING_DELTA);
  }
  return undefined;
};

/** A content delta read by the scan, any other event JSON.parsed. */
export const anthropicMessagesClassifier: EventClassifier = withScan(
  anthropicMessagesParsingClassifier,
  anthropicMessagesScan,
);

function contentOf(delta: unknown): EventFacts {
  if (!isJsonObject(delta)) return NO_FACTS;
  const type = stringField(delta, 'type');
  const textField = DELTA_TEXT_FIELDS[type];
  const text = textField === undefined ? '' : stringField(delta, textField);
  return text === '' ? NO_FACTS : contentFacts(text, type === THINKING_DELTA);
}

/** A `tool_use` block (a tool the client runs; not `server_tool_use`) is a tool call, known by its block index. */
function blockStart(data: JsonObject): EventFacts {
  const block = field(data, 'content_block');
  if (!isJsonObject(block) || field(block, 'type') !== 'tool_use') return NO_FACTS;
  const index = field(data, 'index');
  return { toolCallIndexes: [typeof index === 'number' ? index : 0] };
}

/** The prompt side of message_start's usage: it reports output_tokens as 1 or so before anything was generated. */
function messageStart(message: unknown): EventFacts {
  const reported = isJsonObject(message) ? readMessagesUsage(field(message, 'usage')) : undefined;
  return reported === undefined ? NO_FACTS : addUsageFacts({}, reported, false);
}

/** The usage so far (output_tokens cumulative) and the stop reason. */
function messageDelta(data: JsonObject): EventFacts {
  const facts: MutableFacts = {};
  const reported = readMessagesUsage(field(data, 'usage'));
  if (reported !== undefined) addUsageFacts(facts, reported);
  const delta = field(data, 'delta');
  if (isJsonObject(delta)) {
    const reason = stringField(delta, 'stop_reason');
    if (reason !== '') facts.finishReason = reason;
  }
  return facts;
}

function errorMessageOf(data: JsonObject, raw: string): string {
  const error = field(data, 'error');
  const message = isJsonObject(error) ? stringField(error, 'message') : '';
  return message === '' ? errorJsonText(error ?? data, raw) : capErrorMessage(message);
}

// ---- The usage reader ----
// Anthropic Messages' usage reader, the one both read streamed (message_start's and message_delta's halves) and
// non-streamed answers with. Its `input_tokens` excludes the prompt tokens read from or written to the cache, which
// it reports beside it: all three are prompt tokens (cache writes priced at the input price here, although
// Anthropic charges them more), and the cache reads are the cached ones. `output_tokens` includes thinking, which
// it does not count apart.

export const readMessagesUsage: UsageReader = usageReader((usage) => {
  const input = countField(usage, 'input_tokens');
  const cacheRead = countField(usage, 'cache_read_input_tokens');
  const cacheWrite = countField(usage, 'cache_creation_input_tokens');
  return {
    promptTokens: input === undefined ? undefined : input + (cacheRead ?? 0) + (cacheWrite ?? 0),
    cachedPromptTokens: cacheRead,
    outputTokens: countField(usage, 'output_tokens'),
  };
});
