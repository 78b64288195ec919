// Streams a ShareGPT-format file (a JSON array of {"id", "conversations": [{"from", "value"}, ...]}) one
// conversation at a time, with bounded memory (see json-array-splitter.ts). A malformed element is counted and
// skipped, never fatal: a 670 MB download with one bad entry should still be usable.

import { createReadStream } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { isJsonObject } from '../../src/shared/json-object.js';
import { splitJsonArray } from './json-array-splitter.js';

export interface ShareGptTurn {
  from: string;
  value: string;
}

export interface ShareGptConversation {
  id: string;
  conversations: ShareGptTurn[];
}

/** A well-formed conversation and where its bytes lie in the file (to read it again by position). */
export interface ShareGptElement {
  index: number;
  start: number;
  end: number;
  conversation: ShareGptConversation;
}

export interface ShareGptReadStats {
  /** Elements seen in the top-level array, well-formed or not. */
  elements: number;
  valid: number;
  malformed: number;
  /** The first few reasons, "element N: why", for the user to find the culprits. */
  reasons: string[];
  /** Structural oddities between elements (missing comma, missing closing bracket). */
  notices: string[];
}

export interface ShareGptReaderOptions {
  /** Read size in bytes (default 1 MiB). Tests use tiny values to split elements across reads. */
  highWaterMark?: number;
  /** Skip (and report) elements larger than this (default 64 MiB). */
  maxElementBytes?: number;
  /** How many malformed-element reasons to keep (default 5). */
  maxReasons?: number;
}

const DEFAULT_HIGH_WATER_MARK = 1024 * 1024;
const DEFAULT_MAX_REASONS = 5;

/**
 * Checks one parsed element against the ShareGPT shape. Every turn must be an object with a string `value`
 * (and a string `from` when present). This is stricter than vLLM for turns after the second, which vLLM never
 * reads; real ShareGPT files have no such entries, and a typed conversation is easier to trust.
 */
export function toShareGptConversation(value: unknown, index: number): ShareGptConversation | string {
  if (!isJsonObject(value))
    return `${value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`}, not an object`;
  const turns = value['conversations'];
  if (turns === undefined) return "no 'conversations' key";
  if (!Array.isArray(turns)) return `'conversations' is ${typeof turns}, not an array`;
  const conversations: ShareGptTurn[] = [];
  for (let t = 0; t < turns.length; t++) {
    const turn: unknown = turns[t];
    if (!isJsonObject(turn)) return `turn ${t} is not an object`;
    const text = turn['value'];
    const from = turn['from'];
    if (typeof text !== 'string')
      return `turn ${t} 'value' is ${text === null ? 'null' : typeof text}, not a string`;
    if (from !== undefined && typeof from !== 'string')
      return `turn ${t} 'from' is ${typeof from}, not a string`;
    conversations.push({ from: from ?? '', value: text });
  }
  const id = value['id'];
  return { id: typeof id === 'string' || typeof id === 'number' ? String(id) : `#${index}`, conversations };
}

/** JSON-parses one element's bytes and checks its shape; a string result is the reason it was rejected. */
export function parseShareGptElement(bytes: Buffer, index: number): ShareGptConversation | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    return `invalid JSON (${error instanceof Error ? error.message : String(error)})`;
  }
  return toShareGptConversation(parsed, index);
}

/** Reads one element again by its byte range (from a first pass); used to sample without keeping entries. */
export async function readShareGptElementAt(
  file: FileHandle,
  start: number,
  end: number,
  index: number,
): Promise<ShareGptConversation | string> {
  const bytes = Buffer.allocUnsafe(end - start);
  let filled = 0;
  while (filled < bytes.length) {
    const { bytesRead } = await file.read(bytes, filled, bytes.length - filled, start + filled);
    if (bytesRead === 0) return 'file changed since it was scanned (element cut short)';
    filled += bytesRead;
  }
  return parseShareGptElement(bytes, index);
}

/**
 * Async iterable over the well-formed conversations of a ShareGPT file. `stats` fills in as iteration goes and
 * is complete once the loop ends. Throws NotAJsonArrayError when the file is not a JSON array at all.
 */
export class ShareGptReader implements AsyncIterable<ShareGptElement> {
  readonly stats: ShareGptReadStats = { elements: 0, valid: 0, malformed: 0, reasons: [], notices: [] };
  private readonly maxReasons: number;

  constructor(
    readonly path: string,
    private readonly options: ShareGptReaderOptions = {},
  ) {
    this.maxReasons = options.maxReasons ?? DEFAULT_MAX_REASONS;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<ShareGptElement> {
    const stream = createReadStream(this.path, {
      highWaterMark: this.options.highWaterMark ?? DEFAULT_HIGH_WATER_MARK,
    });
    const splitterOptions = {
      onNotice: (notice: { offset: number; message: string }) => {
        if (this.stats.notices.length < this.maxReasons)
          this.stats.notices.push(`byte ${notice.offset}: ${notice.message}`);
      },
      ...(this.options.maxElementBytes === undefined
        ? {}
        : { maxElementBytes: this.options.maxElementBytes }),
    };
    try {
      for await (const element of splitJsonArray(stream, splitterOptions)) {
        this.stats.elements++;
        const result =
          element.kind === 'element' ? parseShareGptElement(element.bytes, element.index) : element.reason;
        if (typeof result === 'string') {
          this.malformed(element.index, result);
          continue;
        }
        this.stats.valid++;
        yield { index: element.index, start: element.start, end: element.end, conversation: result };
      }
    } finally {
      stream.destroy();
    }
  }

  private malformed(index: number, reason: string): void {
    this.stats.malformed++;
    if (this.stats.reasons.length < this.maxReasons) this.stats.reasons.push(`element ${index}: ${reason}`);
  }
}
