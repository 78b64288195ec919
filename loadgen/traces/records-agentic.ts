// A gateway records file as an agentic trace (agentic-trace.ts's format; `trace export --sessions`): the sessions
// the gateway found (docs/metrics.md, "Sessions"), their turns in order with the agent's wait before each, the
// lengths the upstream reported, the protocol and tool counts, and prefix block ids, all without text.
//
// Which records: those the Mooncake export keeps (records-trace.ts: no mirror copies, token counts known and
// plausible), the same counts left out. A record without a session (no conversation and no id) is a session of
// its own, one turn. Sessions are grouped by the gateway's id across every file given (a client's id is the same
// in every worker's file), their turns ordered by arrival and numbered again from 0, so a turn left out leaves
// no gap; ids are then replaced by "s" and the session's index in order of first arrival, zero-padded.
//
// Waits: the record's waitBeforeMs when the turn before it in the trace is the gateway's turn before it too;
// otherwise (a worker boundary, a turn left out) this arrival less the previous turn's arrival and e2e time. A
// turn that arrived before the previous turn's answer ended (a side request, a sub-agent) gets 0 and is counted.
// A wait is never more than the gap between the two arrivals (timestamps are whole ms), so the reader's rule
// holds: a turn arrives at least its wait after the previous one.
//
// Block ids, from the record's promptPrefixes (src/gateway/prompt-prefixes.ts): each boundary is placed at a
// token position by its share of the prompt's bytes, scaled to the reported prompt tokens. Records are taken in
// order of arrival; a record whose boundaries include one seen before (the longest such) shares the ids of the
// earlier record's blocks that lie wholly before that boundary (all of them when the boundary is that record's
// whole prompt and the lengths agree), and takes new ids for the rest; the boundary keeps the token position it
// was first given, so later turns agree on it. So an id is "the index, in order of first appearance, of a prompt
// prefix ending at this block", and a session's turn k+1 begins with turn k's ids but its last, partial block.
// Sharing that begins mid-message, and records without promptPrefixes (before the field; completions), get ids
// of their own, counted. A Responses turn the gateway placed by its previous_response_id sends only its new input
// (the server keeps the rest): it takes the previous turn's whole blocks, then new ids, counted.

import type { RequestRecord } from '../../src/gateway/records/record.js';
import type { PromptPrefix } from '../../src/gateway/sessions/prompt-prefixes.js';
import { protocolByName } from '../../src/protocols/index.js';
import type { AgentApi } from './agent-sessions.js';
import type { AgenticLine } from './agentic-trace.js';
import { type Exported, exportableRecords, type RecordsTrace } from './records-trace.js';

type SessionRecord = Exported &
  Pick<
    RequestRecord,
    | 'sessionId'
    | 'sessionSource'
    | 'turn'
    | 'waitBeforeMs'
    | 'e2eMs'
    | 'receivedAtMonotonicMs'
    | 'protocol'
    | 'toolCalls'
    | 'toolResults'
    | 'promptPrefixes'
  >;

export interface RecordsAgentic {
  readonly lines: AgenticLine[];
  readonly sessions: number;
  /** Sessions of one turn made of records without a session. */
  readonly unplaced: number;
  /** Records left out, by why (as the Mooncake export counts them). */
  readonly skipped: RecordsTrace['skipped'];
  /** Turns whose ids are their own for want of promptPrefixes. */
  readonly withoutPrefixes: number;
  /** Responses turns that continued a stored answer (previous_response_id): ids from the turn before. */
  readonly continued: number;
  /** Turns that arrived before the previous turn's answer ended: written with wait_ms 0. */
  readonly overlapping: number;
}

/** The most entries a record's promptPrefixes may hold (prompt-prefixes.ts's bound, with room to grow). */
const MAX_ENTRIES = 64;

/** A record's promptPrefixes when well formed: in order of messages and bytes, the last the whole prompt. */
function prefixesOf(record: SessionRecord): readonly PromptPrefix[] | undefined {
  const entries: unknown = record.promptPrefixes;
  if (!Array.isArray(entries) || entries.length === 0 || entries.length > MAX_ENTRIES) return undefined;
  let messages = -1;
  let bytes = 0;
  for (const entry of entries) {
    if (!Array.isArray(entry) || entry.length !== 3) return undefined;
    const [m, b, h] = entry as unknown[];
    if (!Number.isInteger(m) || (m as number) <= messages) return undefined;
    if (!Number.isInteger(b) || (b as number) < bytes) return undefined;
    if (typeof h !== 'string' || h === '' || h.length > 64) return undefined;
    messages = m as number;
    bytes = b as number;
  }
  return entries as PromptPrefix[];
}

/** What the export knows of a prefix seen before: where it ends and the ids of the blocks before its end. */
interface KnownPrefix {
  readonly tokens: number;
  readonly ids: readonly number[];
  /** It was a whole prompt: its last, partial block is its own too. */
  readonly whole: boolean;
}

class BlockIds {
  readonly #known = new Map<string, KnownPrefix>();
  #next = 0;

  constructor(readonly blockTokens: number) {}

  of(prefixes: readonly PromptPrefix[] | undefined, promptTokens: number): number[] {
    const blocks = Math.ceil(promptTokens / this.blockTokens);
    if (prefixes === undefined) return this.#fresh([], blocks);
    let j = prefixes.length - 1;
    while (j >= 0 && !this.#known.has((prefixes[j] as PromptPrefix)[2])) j--;
    const known = j < 0 ? undefined : this.#known.get((prefixes[j] as PromptPrefix)[2]);
    let shared = 0;
    if (known !== undefined) {
      shared =
        known.whole && known.tokens === promptTokens
          ? blocks
          : Math.floor(Math.min(known.tokens, promptTokens) / this.blockTokens);
      shared = Math.min(shared, known.ids.length);
    }
    const ids = this.#fresh(known === undefined ? [] : known.ids.slice(0, shared), blocks);
    // Place this record's new boundaries: within the known prefix by its share of that prefix, after it by the
    // share of the rest.
    const last = prefixes.length - 1;
    const totalBytes = (prefixes[last] as PromptPrefix)[1];
    const knownTokens = known === undefined ? 0 : Math.min(known.tokens, promptTokens);
    const knownBytes = j < 0 ? 0 : (prefixes[j] as PromptPrefix)[1];
    prefixes.forEach(([, bytes, hash], i) => {
      if (this.#known.has(hash)) return;
      let tokens: number;
      if (i === last) tokens = promptTokens;
      else if (i <= j) tokens = knownBytes === 0 ? 0 : Math.round((bytes / knownBytes) * knownTokens);
      else
        tokens =
          knownTokens +
          (totalBytes === knownBytes
            ? 0
            : Math.round(((bytes - knownBytes) / (totalBytes - knownBytes)) * (promptTokens - knownTokens)));
      this.#known.set(hash, { tokens, ids, whole: i === last });
    });
    return ids;
  }

  /** A prompt that is the previous turn's whole prompt and more: its whole blocks, then new ids. */
  continuing(previousIds: readonly number[], previousTokens: number, promptTokens: number): number[] {
    const shared = Math.floor(Math.min(previousTokens, promptTokens) / this.blockTokens);
    return this.#fresh(previousIds.slice(0, shared), Math.ceil(promptTokens / this.blockTokens));
  }

  #fresh(ids: number[], blocks: number): number[] {
    while (ids.length < blocks) ids.push(this.#next++);
    return ids;
  }
}

function apiOf(record: SessionRecord): AgentApi | undefined {
  return record.protocol === null ? undefined : protocolByName(String(record.protocol))?.family;
}

function whole(value: unknown): number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : 0;
}

export function recordsToAgenticTrace(text: string, blockTokens: number): RecordsAgentic {
  const { kept: all, skipped } = exportableRecords<SessionRecord>(text);
  // Ties within a millisecond: the gateway's own clock says which arrived first.
  const kept = all
    .filter(({ record }) => {
      if (apiOf(record) !== undefined) return true;
      skipped.malformed++;
      return false;
    })
    .sort(
      (a, b) => a.at - b.at || (a.record.receivedAtMonotonicMs ?? 0) - (b.record.receivedAtMonotonicMs ?? 0),
    );
  const first = kept[0]?.at ?? 0;
  const blockIds = new BlockIds(blockTokens);
  let withoutPrefixes = 0;
  let continued = 0;
  let unplaced = 0;
  const sessions = new Map<string, { record: SessionRecord; at: number; hashIds: number[] }[]>();
  for (const { record, at } of kept) {
    let key: string;
    if (typeof record.sessionId === 'string' && record.sessionId !== '') key = `id:${record.sessionId}`;
    else {
      unplaced++;
      key = `alone:${unplaced}`;
    }
    let turns = sessions.get(key);
    if (turns === undefined) {
      turns = [];
      sessions.set(key, turns);
    }
    const previous = turns.at(-1);
    let hashIds: number[];
    if (record.sessionSource === 'previous-response-id' && previous !== undefined) {
      // The server holds the conversation: this prompt is the previous turn's, its answer, then the new input.
      hashIds = blockIds.continuing(
        previous.hashIds,
        previous.record.promptTokens as number,
        record.promptTokens as number,
      );
      continued++;
    } else {
      const prefixes = prefixesOf(record);
      if (prefixes === undefined) withoutPrefixes++;
      hashIds = blockIds.of(prefixes, record.promptTokens as number);
    }
    turns.push({ record, at, hashIds });
  }
  const width = String(Math.max(0, sessions.size - 1)).length;
  let overlapping = 0;
  const lines: { line: AgenticLine; order: number }[] = [];
  let index = 0;
  let order = 0;
  for (const turns of sessions.values()) {
    const sessionId = `s${String(index++).padStart(width, '0')}`;
    turns.forEach(({ record, at, hashIds }, turn) => {
      let waitMs = 0;
      const previous = turns[turn - 1];
      if (previous !== undefined) {
        const sameChain =
          typeof record.turn === 'number' &&
          typeof previous.record.turn === 'number' &&
          record.turn === previous.record.turn + 1;
        const recorded =
          sameChain && typeof record.waitBeforeMs === 'number' ? record.waitBeforeMs : undefined;
        const wait = recorded ?? at - (previous.at + (previous.record.e2eMs ?? 0));
        if (!(wait >= 0)) overlapping++;
        waitMs = Math.min(Math.max(0, wait), at - previous.at);
      }
      const api = apiOf(record) as AgentApi;
      lines.push({
        order: order++,
        line: {
          session_id: sessionId,
          turn,
          timestamp: at - first,
          wait_ms: Math.round(waitMs * 1000) / 1000,
          input_length: record.promptTokens as number,
          output_length: record.outputTokens as number,
          hash_ids: hashIds,
          block_size: blockTokens,
          api,
          tool_calls: whole(record.toolCalls),
          tool_results: whole(record.toolResults),
        },
      });
    });
  }
  lines.sort((a, b) => a.line.timestamp - b.line.timestamp || a.order - b.order);
  return {
    lines: lines.map(({ line }) => line),
    sessions: sessions.size,
    unplaced,
    skipped,
    withoutPrefixes,
    continued,
    overlapping,
  };
}
