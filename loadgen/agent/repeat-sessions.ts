// More sessions than the trace holds, for a load that needs them (a sweep level of N concurrent sessions runs
// until its time is up): the trace's sessions again, in order, as new sessions. A repeat keeps the block ids the
// trace shares between sessions (an agent's system prompt and tools: what every session of the team sends) and
// renames the ids of one session's own, so a repeated session shares with the others what the original shared,
// and not its whole conversation with the original.

import type { AgentSession, AgentTurn } from '../traces/agent-sessions.js';

/** The first `count` sessions of the trace repeated without end; repeat r's ids are suffixed `~r`. */
export function repeatSessions(sessions: readonly AgentSession[], count: number): AgentSession[] {
  if (count <= sessions.length) return sessions.slice(0, count);
  const owners = new Map<number, Set<string>>();
  let maxId = 0;
  for (const session of sessions) {
    for (const turn of session.turns) {
      for (const id of turn.hashIds) {
        maxId = Math.max(maxId, id);
        const set = owners.get(id) ?? new Set<string>();
        set.add(session.id);
        owners.set(id, set);
      }
    }
  }
  const span = maxId + 1;
  const out: AgentSession[] = [];
  for (let i = 0; i < count; i++) {
    const session = sessions[i % sessions.length] as AgentSession;
    const r = Math.floor(i / sessions.length);
    if (r === 0) {
      out.push(session);
      continue;
    }
    const rename = (id: number): number => ((owners.get(id)?.size ?? 0) > 1 ? id : id + r * span);
    const id = `${session.id}~${r}`;
    out.push({
      id,
      startMs: session.startMs,
      turns: session.turns.map((turn): AgentTurn => ({ ...turn, hashIds: turn.hashIds.map(rename) })),
    });
  }
  return out;
}
