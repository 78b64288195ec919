// A gateway records file as an anonymised trace in the Mooncake form (mooncake-trace.ts reads it back), so a day
// of production traffic can be replayed anywhere without its text: per client request its arrival (ms after the
// first), its prompt and completion token counts as the upstream reported them, and prefix block ids.
//
// Block ids are computed from the prompt when the gateway kept bodies (--record-bodies): the prompt's text (every
// message's role and text, in order, or the completion prompt) is split into tokens by the built-in rule, cut into
// blocks, and each block is named by a hash of everything up to its end, so two requests get the same id for
// block k exactly when their prompts agree up to that block's end. Ids are renumbered 0, 1, 2... in order of
// first appearance: the file says which prompts share a prefix, never what the prefix was. A record without a
// body (or with a cut one) gets ids of its own, sharing nothing. Mirror copies are not client traffic and
// records without token counts (failed before the upstream answered) cannot be replayed: both are left out and
// counted.

import { createHash } from 'node:crypto';
import type { RequestRecord } from '../../src/gateway/records/record.js';
import { parseRecordLines } from '../../src/measure/record-lines.js';
import { tokenCountProblem } from '../../src/measure/reported-usage.js';
import { forEachEstimatedToken } from '../../src/shared/token-estimate.js';

export interface MooncakeLine {
  readonly timestamp: number;
  readonly input_length: number;
  readonly output_length: number;
  readonly hash_ids: number[];
}

export interface RecordsTrace {
  readonly lines: MooncakeLine[];
  /** Records left out, by why. */
  readonly skipped: {
    readonly mirror: number;
    readonly withoutTokens: number;
    /** Token counts no request can have (src/measure/reported-usage.ts), as a gateway before 0.2 recorded them. */
    readonly implausible: number;
    readonly malformed: number;
  };
  /** Lines whose block ids come from their prompt's text (the rest had no complete body). */
  readonly fromBodies: number;
  /** Requests whose prompt begins with text an earlier one began with, but less than one block of it: the block
   *  ids show them sharing nothing. Absent when there are none. */
  readonly hiddenSharing?: HiddenSharing;
}

export interface HiddenSharing {
  readonly requests: number;
  /** The longest prefix one of them shares, in tokens (a multiple of SHARING_GRAIN_TOKENS). */
  readonly longestTokens: number;
  /** The largest power of two no longer than that prefix: the block size that would show it. */
  readonly blockTokens: number;
}

/** The grain sharing is looked for at, below the block size: the simulator's and vLLM's KV cache block. */
const SHARING_GRAIN_TOKENS = 16;

export type Exported = Pick<
  RequestRecord,
  'role' | 'startedAt' | 'promptTokens' | 'outputTokens' | 'requestBody' | 'requestBodyTruncated'
>;

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => {
      const fields = part as { text?: unknown } | null;
      return typeof fields?.text === 'string' ? fields.text : '';
    })
    .join('\n');
}

/** The text a server would cache a prefix of, in order: system, then each message's role and text. */
export function promptTextOf(body: Record<string, unknown>): string | undefined {
  const parts: string[] = [];
  if (body['system'] !== undefined) parts.push('system', textOf(body['system']));
  const messages = Array.isArray(body['messages'])
    ? body['messages']
    : Array.isArray(body['input'])
      ? body['input']
      : undefined;
  if (messages !== undefined) {
    for (const message of messages) {
      const fields = message as { role?: unknown; content?: unknown } | null;
      parts.push(typeof fields?.role === 'string' ? fields.role : '', textOf(fields?.content));
    }
    return parts.join('\n');
  }
  for (const key of ['prompt', 'input']) {
    const value = body[key];
    if (typeof value === 'string') return [...parts, value].join('\n');
  }
  return parts.length > 0 ? parts.join('\n') : undefined;
}

function bodyOf(record: Exported): Record<string, unknown> | undefined {
  if (typeof record.requestBody !== 'string' || record.requestBodyTruncated === true) return undefined;
  try {
    const value: unknown = JSON.parse(record.requestBody);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function tokensOf(text: string): string[] {
  const tokens: string[] = [];
  forEachEstimatedToken(text, (piece) => tokens.push(piece));
  return tokens;
}

/** One hash per whole or partial block of the prompt, each covering everything up to the block's end. */
function prefixHashes(tokens: readonly string[], blockTokens: number): string[] {
  const hashes: string[] = [];
  const running = createHash('sha256');
  for (let start = 0; start < tokens.length; start += blockTokens) {
    running.update(tokens.slice(start, start + blockTokens).join('\u0000'));
    running.update('\u0001');
    hashes.push(running.copy().digest('hex'));
  }
  return hashes;
}

/** The records a trace keeps, in order of arrival (`at`: ms since the epoch), and those left out, by why. */
export function exportableRecords<R extends Exported>(
  text: string,
): {
  kept: { record: R; at: number }[];
  skipped: { -readonly [K in keyof RecordsTrace['skipped']]: number };
} {
  const parsed = parseRecordLines(text);
  const skipped = { mirror: 0, withoutTokens: 0, implausible: 0, malformed: parsed.malformed };
  const kept: { record: R; at: number }[] = [];
  for (const line of parsed.records) {
    const record = line as unknown as R;
    const at = Date.parse(String(record.startedAt));
    if (!Number.isFinite(at)) skipped.malformed++;
    else if (record.role === 'mirror') skipped.mirror++;
    else if (
      !(typeof record.promptTokens === 'number' && record.promptTokens > 0) ||
      !(typeof record.outputTokens === 'number' && record.outputTokens > 0)
    )
      skipped.withoutTokens++;
    // Each block of the prompt becomes an id: a count of 1e12 once asked for 2 billion of them (out of memory).
    else if (
      tokenCountProblem(record.promptTokens) !== undefined ||
      tokenCountProblem(record.outputTokens) !== undefined
    )
      skipped.implausible++;
    else kept.push({ record, at });
  }
  // Stable: records of one millisecond keep their order in the file.
  kept.sort((a, b) => a.at - b.at);
  return { kept, skipped };
}

export function recordsToTrace(text: string, blockTokens: number): RecordsTrace {
  const { kept, skipped } = exportableRecords<Exported>(text);
  const first = kept[0]?.at ?? 0;
  const ids = new Map<string, number>();
  let nextId = 0;
  const idOf = (hash: string): number => {
    let id = ids.get(hash);
    if (id === undefined) {
      id = nextId++;
      ids.set(hash, id);
    }
    return id;
  };
  let fromBodies = 0;
  // Prefix hashes at the fine grain, to find prompts that share less than a block.
  const grainSeen = new Set<string>();
  const hidden = { requests: 0, longestTokens: 0 };
  const lines = kept.map(({ record, at }) => {
    const input = record.promptTokens as number;
    const body = bodyOf(record);
    const prompt = body === undefined ? undefined : promptTextOf(body);
    let hashIds: number[];
    if (prompt === undefined) {
      // Fresh ids, one per block of the recorded length: this request shares nothing that is known.
      hashIds = Array.from({ length: Math.ceil(input / blockTokens) }, () => nextId++);
    } else {
      fromBodies++;
      const tokens = tokensOf(prompt);
      const idsBefore = nextId;
      hashIds = prefixHashes(tokens, blockTokens).map(idOf);
      const sharedTokens = sharedPrefixTokens(tokens, grainSeen);
      // Its first block got a new id although its first words were seen before: the sharing is under a block.
      if (sharedTokens > 0 && hashIds[0] !== undefined && hashIds[0] >= idsBefore) {
        hidden.requests++;
        hidden.longestTokens = Math.max(hidden.longestTokens, sharedTokens);
      }
    }
    return {
      timestamp: at - first,
      input_length: input,
      output_length: record.outputTokens as number,
      hash_ids: hashIds,
    };
  });
  if (hidden.requests === 0) return { lines, skipped, fromBodies };
  const blockTokensShowingIt = 2 ** Math.floor(Math.log2(hidden.longestTokens));
  return { lines, skipped, fromBodies, hiddenSharing: { ...hidden, blockTokens: blockTokensShowingIt } };
}

/** How many leading tokens, in whole grains, this prompt shares with an earlier one; its grains are then added. */
function sharedPrefixTokens(tokens: readonly string[], seen: Set<string>): number {
  let shared = 0;
  let stillShared = true;
  for (const hash of prefixHashes(tokens, SHARING_GRAIN_TOKENS)) {
    if (stillShared && seen.has(hash)) shared++;
    else stillShared = false;
    seen.add(hash);
  }
  // The last grain may be partial: count only whole ones.
  return Math.min(
    shared * SHARING_GRAIN_TOKENS,
    Math.floor(tokens.length / SHARING_GRAIN_TOKENS) * SHARING_GRAIN_TOKENS,
  );
}
