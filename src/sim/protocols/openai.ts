// OpenAI chat completions and completions, as vLLM serves them.
import type { IncomingMessage } from 'node:http';
import { openAIError } from '../../shared/openai-error.js';
import { parseOpenAIRequest } from './openai-request.js';
import { OpenAIWire } from './openai-wire.js';
import { bearerKey, type SimProtocol } from './protocol.js';

function errorType(status: number): string {
  if (status === 429) return 'rate_limit_error';
  return status >= 500 ? 'server_error' : 'invalid_request_error';
}

function openAIProtocol(
  name: 'openai-chat' | 'openai-completions',
  path: string,
  idPrefix: string,
): SimProtocol {
  return {
    name,
    path,
    idPrefix,
    parse: (body) => parseOpenAIRequest(name, body),
    wire: (context) => new OpenAIWire(context),
    error: (status, message, code, param = null) => openAIError(message, errorType(status), code, param),
    hasKey: (req: IncomingMessage, key: string) => bearerKey(req, key),
  };
}

export const openAIChat = openAIProtocol('openai-chat', '/v1/chat/completions', 'chatcmpl');
export const openAICompletions = openAIProtocol('openai-completions', '/v1/completions', 'cmpl');
