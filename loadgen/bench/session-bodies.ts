// A multi-turn session's request body for one turn: the turn's own body (its user message, sampling fields,
// output length, stream options: payload.ts), with the session's earlier turns put before its message, each
// user message as the dataset had it and each assistant message as the model actually answered it. Where the
// conversation goes is the protocol's fact (conversationField); completions carry a single prompt and have no
// sessions.

import { protocolByName } from '../../src/protocols/index.js';
import { isJsonObject } from '../../src/shared/json-object.js';
import type { SampleRequest } from '../datasets/sample-request.js';
import type { SessionMessage } from '../engine/session-engine.js';
import { buildPayload, type PayloadOptions } from './payload.js';

/** Whether the protocol's bodies can carry a conversation. */
export function carriesConversation(options: Pick<PayloadOptions, 'protocol'>): boolean {
  return protocolByName(options.protocol).conversationField !== null;
}

export function sessionTurnBody(
  turn: SampleRequest,
  history: readonly SessionMessage[],
  options: PayloadOptions,
): Buffer {
  const body = buildPayload(turn, options);
  const field = protocolByName(options.protocol).conversationField;
  if (field !== null && history.length > 0) {
    const own = body[field];
    // Responses may take its input as a bare string; in a conversation it is the last user message.
    const last: unknown[] =
      typeof own === 'string' ? [{ role: 'user', content: own }] : Array.isArray(own) ? own : [];
    // A shared system message (--shared-system-prompt-length) opens the conversation, before the history.
    const isSystem = (message: unknown): boolean => isJsonObject(message) && message['role'] === 'system';
    body[field] = [...last.filter(isSystem), ...history, ...last.filter((message) => !isSystem(message))];
  }
  return Buffer.from(JSON.stringify(body));
}
