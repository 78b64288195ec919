// Which requests a route's mirror may copy without being told to. A copy is only harmless when sending the same
// request twice changes nothing but the bill: a POST that asks for a generation or an embedding and nothing else.
// A request with tools is not, although the model only proposes calls: hosted APIs run server-side tools
// themselves (web search, code execution, file search), and a copy would run them a second time. An OpenAI
// Responses request is stored by the API unless it says `"store": false`, so a copy would leave a second stored
// response (and a conversation a later `previous_response_id` could continue). Any other endpoint or method may
// create, change or delete something upstream. Such requests are copied only when the route says
// `includeSideEffects: true`.
import type { BodyObject } from '../request-path/request-body.js';

/** Endpoints whose POST only answers (with no tools offered): copying it runs nothing twice. */
const ANSWER_ONLY_ENDPOINTS: ReadonlySet<string> = new Set([
  'chat/completions',
  'completions',
  'messages',
  'embeddings',
]);

/** True when copying this request may do more than cost a second answer (see the header). */
export function mayHaveSideEffects(method: string, endpoint: string, body: BodyObject | undefined): boolean {
  if (method !== 'POST' || body === undefined) return true;
  if (body.offersTools) return true;
  if (endpoint === 'responses') return !body.storeOff;
  return !ANSWER_ONLY_ENDPOINTS.has(endpoint);
}
