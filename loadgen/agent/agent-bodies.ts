// A replayed turn's request body in its protocol: the session's conversation so far (user messages, the model's
// actual answers with their tool calls, the tool results sent back), one tool offered, and the turn's output
// length. Whether the answer may call the tool follows the capture: `required` when the recorded turn's answer
// called tools, `none` when it did not, so the replay's loop takes the recorded shape on a server that honours
// tool_choice (the simulator and vLLM do); `auto` when the trace does not say (AIPerf's).

import type { AgentApi } from '../traces/agent-sessions.js';
import type { AnswerToolCall } from './answer-reading.js';

/** One message of the conversation, protocol-neutral. */
export type ConversationEntry =
  | { readonly kind: 'user'; readonly text: string }
  | { readonly kind: 'assistant'; readonly text: string; readonly toolCalls: readonly AnswerToolCall[] }
  | { readonly kind: 'tool-result'; readonly callId: string; readonly text: string };

/**
 * The one tool every replayed request offers. Its argument is an enum, so a server that fills arguments from the
 * schema (the simulator takes the first enum value) answers a call of the same length every time.
 */
export const REPLAY_TOOL = {
  name: 'run_step',
  description: 'Run the next step of the task.',
  parameters: {
    type: 'object',
    properties: { step: { type: 'string', enum: ['next'] } },
    required: ['step'],
  },
} as const;

export interface TurnBodyOptions {
  readonly model: string;
  readonly maxTokens: number;
  /** Whether the answer must call the tool, or may not; null: the server decides (the trace does not say). */
  readonly callTool: boolean | null;
  /** Fields merged into every body (ignore_eos, temperature, ...: what the backend takes). */
  readonly extra: Readonly<Record<string, unknown>>;
}

function chatMessages(entries: readonly ConversationEntry[]): unknown[] {
  return entries.map((entry) => {
    if (entry.kind === 'user') return { role: 'user', content: entry.text };
    if (entry.kind === 'tool-result')
      return { role: 'tool', tool_call_id: entry.callId, content: entry.text };
    return entry.toolCalls.length === 0
      ? { role: 'assistant', content: entry.text }
      : {
          role: 'assistant',
          content: entry.text === '' ? null : entry.text,
          tool_calls: entry.toolCalls.map((call) => ({
            id: call.id,
            type: 'function',
            function: { name: call.name, arguments: call.arguments },
          })),
        };
  });
}

function responsesInput(entries: readonly ConversationEntry[]): unknown[] {
  return entries.flatMap((entry): unknown[] => {
    if (entry.kind === 'user') return [{ role: 'user', content: entry.text }];
    if (entry.kind === 'tool-result')
      return [{ type: 'function_call_output', call_id: entry.callId, output: entry.text }];
    return [
      ...(entry.text === '' ? [] : [{ role: 'assistant', content: entry.text }]),
      ...entry.toolCalls.map((call) => ({
        type: 'function_call',
        call_id: call.id,
        name: call.name,
        arguments: call.arguments,
      })),
    ];
  });
}

function parsedArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // Arguments that are not JSON go back as the server wrote them, under one key.
    return { arguments: text };
  }
}

/** Anthropic's messages: tool results go back in one user message, as content blocks. */
function anthropicMessages(entries: readonly ConversationEntry[]): unknown[] {
  const out: { role: string; content: unknown[] }[] = [];
  for (const entry of entries) {
    if (entry.kind === 'assistant') {
      const content: unknown[] = [
        ...(entry.text === '' ? [] : [{ type: 'text', text: entry.text }]),
        ...entry.toolCalls.map((call) => ({
          type: 'tool_use',
          id: call.id,
          name: call.name,
          input: parsedArguments(call.arguments),
        })),
      ];
      out.push({ role: 'assistant', content: content.length > 0 ? content : [{ type: 'text', text: '.' }] });
      continue;
    }
    const block =
      entry.kind === 'user'
        ? { type: 'text', text: entry.text }
        : { type: 'tool_result', tool_use_id: entry.callId, content: entry.text };
    const last = out[out.length - 1];
    if (last?.role === 'user') last.content.push(block);
    else out.push({ role: 'user', content: [block] });
  }
  return out;
}

function choiceWord(callTool: boolean | null): string {
  return callTool === null ? 'auto' : callTool ? 'required' : 'none';
}

export function agentTurnBody(
  api: AgentApi,
  entries: readonly ConversationEntry[],
  options: TurnBodyOptions,
): Record<string, unknown> {
  const { model, maxTokens, callTool, extra } = options;
  const tool = REPLAY_TOOL;
  switch (api) {
    case 'chat':
      return {
        model,
        messages: chatMessages(entries),
        tools: [{ type: 'function', function: tool }],
        tool_choice: choiceWord(callTool),
        max_tokens: maxTokens,
        stream: true,
        stream_options: { include_usage: true },
        ...extra,
      };
    case 'responses':
      return {
        model,
        input: responsesInput(entries),
        tools: [{ type: 'function', ...tool }],
        tool_choice: choiceWord(callTool),
        max_output_tokens: maxTokens,
        stream: true,
        ...extra,
      };
    case 'messages':
      return {
        model,
        messages: anthropicMessages(entries),
        tools: [{ name: tool.name, description: tool.description, input_schema: tool.parameters }],
        tool_choice: { type: callTool === null ? 'auto' : callTool ? 'any' : 'none' },
        max_tokens: maxTokens,
        stream: true,
        ...extra,
      };
    case 'completions':
      return {
        model,
        prompt: entries.map((entry) => entry.text).join('\n'),
        max_tokens: maxTokens,
        stream: true,
        stream_options: { include_usage: true },
        ...extra,
      };
  }
}
