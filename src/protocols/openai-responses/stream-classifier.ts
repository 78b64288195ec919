// OpenAI Responses streams (`/v1/responses`). Content is a delta of output text, reasoning text, a refusal or
// function-call arguments. `response.created`, `response.in_progress`, `*.added` and `*.done` events carry no new
// output (the `*.done` events repeat text already streamed, so counting them would count it twice). Usage and the
// end come with `response.completed` (or `response.incomplete`); `response.failed` and `error` carry errors.

import {
  capErrorMessage,
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
  literalAnyOf,
  membersAfter,
  membersBefore,
  named,
  object,
  stringValue,
  whole,
  withScan,
} from '../event-scan.js';
import { addUsageFacts, detailCount, type UsageReader, usageReader } from '../usage.js';

/** The reasoning deltas: the model's reasoning (or its summary), streamed before the answer. */
const REASONING_DELTAS: ReadonlySet<string> = new Set([
  'response.reasoning_text.delta',
  'response.reasoning_summary_text.delta',
]);
const CONTENT_DELTAS: ReadonlySet<string> = new Set([
  'response.output_text.delta',
  ...REASONING_DELTAS,
  'response.refusal.delta',
  'response.function_call_arguments.delta',
]);

/** Every event JSON.parsed: the reference the scan is tested against. */
export const openAiResponsesParsingClassifier: EventClassifier = {
  protocol: 'openai-responses',
  classify(event: SseEvent): EventFacts {
    const data = parseJsonObject(event.data);
    if (data === undefined) {
      return event.event === 'error' ? { errorMessage: capErrorMessage(event.data) } : UNPARSEABLE_FACTS;
    }
    const type = stringField(data, 'type') || (event.event ?? '');
    if (CONTENT_DELTAS.has(type)) return contentFacts(stringField(data, 'delta'), REASONING_DELTAS.has(type));
    if (type === 'response.completed' || type === 'response.incomplete')
      return finished(field(data, 'response'));
    if (type === 'response.failed') return failed(field(data, 'response'));
    if (type === 'response.created') return created(field(data, 'response'));
    if (type === 'response.output_item.added') return itemAdded(data);
    if (type === 'error') {
      const message = stringField(data, 'message');
      return { errorMessage: message === '' ? errorJsonText(data, event.data) : capErrorMessage(message) };
    }
    return NO_FACTS;
  },
};

// The scan (event-scan.ts) of a content delta: `type` (one of CONTENT_DELTAS) before `delta`, a string, as OpenAI
// writes them; no other member is read.
const IGNORED = ignoredMember(['type', 'delta']);
const CONTENT_DELTA = whole(
  object(
    `${membersBefore(IGNORED)}${named('type')}(${literalAnyOf(CONTENT_DELTAS)})` +
      `${membersAfter(IGNORED)}${COMMA}${named('delta')}(${JSON_STRING})${membersAfter(IGNORED)}`,
  ),
);

export const openAiResponsesScan: EventScan = (event) => {
  const match = CONTENT_DELTA.exec(event.data);
  if (match === null) return undefined;
  // The type literal is written without escapes: its text between the quotes is the type.
  const type = (match[1] as string).slice(1, -1);
  return contentFacts(stringValue(match[2] as string), REASONING_DELTAS.has(type));
};

/** A content delta read by the scan, any other event JSON.parsed. */
export const openAiResponsesClassifier: EventClassifier = withScan(
  openAiResponsesParsingClassifier,
  openAiResponsesScan,
);

/**
 * The output items that ask the client to run a tool; `web_search_call`, `file_search_call` and the like ran on
 * the server and are not counted.
 */
export const CLIENT_TOOL_CALL_ITEMS: ReadonlySet<string> = new Set([
  'function_call',
  'custom_tool_call',
  'local_shell_call',
  'computer_call',
]);

function created(response: unknown): EventFacts {
  const id = isJsonObject(response) ? stringField(response, 'id') : '';
  return id === '' ? NO_FACTS : { responseId: id };
}

function itemAdded(data: JsonObject): EventFacts {
  const item = field(data, 'item');
  const type = isJsonObject(item) ? stringField(item, 'type') : '';
  if (!CLIENT_TOOL_CALL_ITEMS.has(type)) return NO_FACTS;
  const index = field(data, 'output_index');
  return { toolCallIndexes: [typeof index === 'number' ? index : 0] };
}

function finished(response: unknown): EventFacts {
  const facts: MutableFacts = { done: true };
  if (!isJsonObject(response)) return facts;
  const id = stringField(response, 'id');
  if (id !== '') facts.responseId = id;
  const reported = readResponsesUsage(field(response, 'usage'));
  if (reported !== undefined) addUsageFacts(facts, reported);
  const details = field(response, 'incomplete_details');
  const reason = isJsonObject(details) ? stringField(details, 'reason') : '';
  facts.finishReason = reason || stringField(response, 'status') || 'completed';
  return facts;
}

function failed(response: unknown): EventFacts {
  const error = isJsonObject(response) ? field(response, 'error') : undefined;
  const message = isJsonObject(error) ? stringField(error as JsonObject, 'message') : '';
  return { done: true, errorMessage: capErrorMessage(message || 'response.failed') };
}

// ---- The usage reader ----
// OpenAI Responses' usage reader, the one both read streamed (`response.completed` and `response.incomplete`) and
// non-streamed answers with: `input_tokens` (cached ones included, counted in `input_tokens_details.cached_tokens`),
// `output_tokens` (reasoning included, counted in `output_tokens_details.reasoning_tokens`).

export const readResponsesUsage: UsageReader = usageReader((usage) => ({
  promptTokens: countField(usage, 'input_tokens'),
  cachedPromptTokens: detailCount(usage, 'input_tokens_details', 'cached_tokens'),
  outputTokens: countField(usage, 'output_tokens'),
  reasoningTokens: detailCount(usage, 'output_tokens_details', 'reasoning_tokens'),
}));
