// Which requests a route's mirror may copy without being told to. A copy is only harmless when sending the same
// request twice changes nothing but the bill: a POST that asks for a generation or an embedding and nothing else.
// A request with tools is not, although the model only proposes calls: hosted APIs run server-side tools
// themselves (web search, code execution, file search), and a copy would run them a second time. An OpenAI
// Responses request is stored by the API unless it says `"store": false`, so a copy would leave a second stored
// response (and a conversation a later `previous_response_id` could continue). Any other endpoint or method may
// create, change or delete something upstream. Such requests are copied only when the route says
// `includeSideEffects: true`.
import type { JsonObject } from '../../shared/json-object.js';

/** Endpoints whose POST only answers (with `tools` absent): copying it runs nothing twice. */
const ANSWER_ONLY_ENDPOINTS: ReadonlySet<string> = new Set([
  'chat/completions',
  'completions',
  'messages',
  'embeddings',
]);

/** Fields that offer the model tools, across OpenAI chat (and its legacy `functions`), Responses and Anthropic. */
const TOOL_FIELDS = ['tools', 'functions'] as const;

function offersTools(json: JsonObject): boolean {
  return TOOL_FIELDS.some((field) => {
    const value = json[field];
    return Array.isArray(value) ? value.length > 0 : value !== undefined && value !== null;
  });
}

/** True when copying this request may do more than cost a second answer (see the header). */
export function mayHaveSideEffects(method: string, endpoint: string, json: JsonObject | undefined): boolean {
  if (method !== 'POST' || json === undefined) return true;
  if (offersTools(json)) return true;
  if (endpoint === 'responses') return json['store'] !== false;
  return !ANSWER_ONLY_ENDPOINTS.has(endpoint);
}
