// Whether an answer calls a tool, and which: a seeded decision, so the same request gets the same answer. A turn
// calls a tool when the request offers function tools, its tool_choice allows one and the conversation has made
// fewer than --max-tool-turns tool calls so far (counted from its own history, so every agent loop ends); then
// tool_choice `required` or a named tool forces the call, and `auto` draws it with --tool-call-rate. The tool is
// the named one or one of the offered tools drawn uniformly; its arguments come from tool-arguments.ts.
import type { SeededRandom } from '../shared/random.js';
import type { ToolSettings } from './config.js';
import type { PlannedToolCall, ToolChoice, ToolSpec } from './protocols/protocol.js';
import { argumentsFor } from './tool-arguments.js';

const ID_CHARACTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const ID_LENGTH = 24;

export interface ToolOffer {
  readonly tools: readonly ToolSpec[];
  readonly toolChoice: ToolChoice;
  /** Tool-calling turns the conversation already holds. */
  readonly toolTurns: number;
}

export function decideToolCall(
  offer: ToolOffer,
  settings: ToolSettings,
  random: SeededRandom,
): PlannedToolCall | undefined {
  const { tools, toolChoice, toolTurns } = offer;
  if (tools.length === 0 || toolChoice === 'none' || toolTurns >= settings.maxToolTurns) return undefined;
  const draw = random.next();
  let tool: ToolSpec | undefined;
  if (typeof toolChoice === 'object') tool = tools.find((t) => t.name === toolChoice.name);
  else if (toolChoice === 'required' || draw < settings.callRate)
    tool = tools[random.int(0, tools.length - 1)];
  if (tool === undefined) return undefined;
  let idSuffix = '';
  for (let i = 0; i < ID_LENGTH; i++) idSuffix += ID_CHARACTERS[random.int(0, ID_CHARACTERS.length - 1)];
  return { idSuffix, name: tool.name, arguments: JSON.stringify(argumentsFor(tool.schema, random)) };
}
