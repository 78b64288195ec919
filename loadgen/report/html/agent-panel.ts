// The run report's Agent sessions section (an agent replay's run: bench --dataset-name agentic): the per-session
// figures saved under tokenmeter.agent_sessions, and TTFT by turn number from tokenmeter.sessions, each as a table.
// Null for any other run.

import { isJsonObject, type JsonValueObject } from '../../../src/shared/json-object.js';
import { agentSessionsFeature } from '../../agent/agent-feature.js';
import { agentSessionLines } from '../../agent/session-figures.js';
import { keyValueTable } from './page.js';

/** One text row's label and value ("Session duration (ms, p50 / p99):  993.63 / 1034.03"). */
function rowOf(line: string): readonly [string, string] {
  const colon = line.indexOf(':');
  return [line.slice(0, colon), line.slice(colon + 1).trim()];
}

function turnRows(result: JsonValueObject): (readonly [string, string])[] {
  const tokenmeter = result['tokenmeter'];
  const sessions = isJsonObject(tokenmeter) ? tokenmeter['sessions'] : undefined;
  const turns = isJsonObject(sessions) && Array.isArray(sessions['turns']) ? sessions['turns'] : [];
  const ms = (value: unknown): string => (typeof value === 'number' ? value.toFixed(2) : '-');
  const objects = turns.filter((t): t is JsonValueObject => isJsonObject(t));
  return objects.map((t): readonly [string, string] => [
    `Turn ${String(t['turn'])} (${String(t['completed'])}/${String(t['requests'])} ok)`,
    `${ms(t['p50_ttft_ms'])} / ${ms(t['p99_ttft_ms'])}`,
  ]);
}

export function agentPanel(result: JsonValueObject): string | null {
  const figures = agentSessionsFeature.json?.read?.(result);
  if (figures === undefined) return null;
  const turns = turnRows(result);
  return (
    `<div class="panels">${keyValueTable('Per session', agentSessionLines(figures).map(rowOf))}` +
    `${turns.length === 0 ? '' : keyValueTable('TTFT by turn (ms, p50 / p99)', turns)}</div>`
  );
}
