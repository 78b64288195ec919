// Replays a Mooncake-style trace: JSON lines of {"timestamp": ms, "input_length": N, "output_length": M,
// "hash_ids": [...]}, one request each, the way production load is shared without its text (Mooncake's
// published traces; guidellm and AIPerf read the same shape). Each request is sent at its timestamp (relative to
// the trace's first, divided by --replay-speed), with a prompt synthesized from its block ids (block-prompts.ts)
// and asking for output_length tokens. Lines are replayed in timestamp order, never shuffled: a trace is a
// schedule. A malformed line is counted and skipped, with the first reasons kept.

import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { jsonObjectOfLine } from '../../src/shared/json-object.js';
import { hashSeed } from '../../src/shared/random.js';
import { UserFacingError } from '../../src/shared/user-facing-error.js';
import type { SampledDataset, SampleRequest } from '../datasets/sample-request.js';
import type { Tokenizer } from '../tokenizer/tokenizer.js';
import { blockPrompt } from './block-prompts.js';

const MAX_REASONS = 5;

export interface TraceLine {
  /** Where it came from: `line N` of the file. */
  readonly sourceId: string;
  readonly timestampMs: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly hashIds: readonly number[];
}

export interface TraceReplayOptions {
  readonly path: string;
  /** At most this many lines, the earliest first. */
  readonly numPrompts: number;
  readonly seed: number;
  readonly tokenizer: Tokenizer;
  /** 2 = twice as fast as the trace. */
  readonly speed: number;
  readonly blockTokens: number;
}

export interface TraceReplay extends SampledDataset {
  /** Intended send times, ms after the first line's timestamp, divided by the speed. */
  readonly offsetsMs: number[];
}

function wholeAbove(value: unknown, min: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min;
}

/** The names of a trace line's fields, and what its timestamps count. */
export interface TraceLineFormat {
  readonly timestamp: string;
  readonly inputLength: string;
  readonly outputLength: string;
  readonly hashIds: string;
  /** Milliseconds per unit of the timestamp. */
  readonly msPerUnit: number;
  /** The unit, in the words of a reason ("milliseconds"). */
  readonly unitName: string;
}

export const MOONCAKE_LINE: TraceLineFormat = {
  timestamp: 'timestamp',
  inputLength: 'input_length',
  outputLength: 'output_length',
  hashIds: 'hash_ids',
  msPerUnit: 1,
  unitName: 'milliseconds',
};

/** One JSON line of a trace in `format`, or why it cannot be replayed (a missing field named with the line's own). */
export function traceLineOf(text: string, line: number, format: TraceLineFormat): TraceLine | string {
  const fields = jsonObjectOfLine(text);
  if (typeof fields === 'string') return fields;
  const absent = (label: string): string =>
    label in fields
      ? ''
      : ` (the line has no '${label}'; its fields: ${Object.keys(fields).join(', ') || 'none'})`;
  const timestamp = fields[format.timestamp];
  if (typeof timestamp !== 'number' || !Number.isFinite(timestamp) || timestamp < 0)
    return `'${format.timestamp}' must be a number of ${format.unitName}, 0 or more${absent(format.timestamp)}`;
  const input = fields[format.inputLength];
  if (!wholeAbove(input, 1))
    return `'${format.inputLength}' must be a whole number above 0${absent(format.inputLength)}`;
  const output = fields[format.outputLength];
  if (!wholeAbove(output, 1))
    return `'${format.outputLength}' must be a whole number above 0${absent(format.outputLength)}`;
  const ids = fields[format.hashIds] ?? [];
  if (!Array.isArray(ids) || !ids.every((id) => wholeAbove(id, 0)))
    return `'${format.hashIds}' must be a list of whole numbers, 0 or more`;
  return {
    sourceId: `line ${line}`,
    timestampMs: timestamp * format.msPerUnit,
    inputTokens: input,
    outputTokens: output,
    hashIds: ids as number[],
  };
}

/** One Mooncake line, or why it cannot be replayed. */
export function parseMooncakeLine(text: string, line: number): TraceLine | string {
  return traceLineOf(text, line, MOONCAKE_LINE);
}

export interface ReadTrace {
  readonly lines: TraceLine[];
  readonly malformed: number;
  readonly reasons: string[];
}

/** Reads a line-based trace file with `parse`, skipping blank lines and counting the malformed ones. */
export async function readTraceLines(
  path: string,
  parse: (text: string, line: number) => TraceLine | string | null,
): Promise<ReadTrace> {
  const lines: TraceLine[] = [];
  const reasons: string[] = [];
  let malformed = 0;
  let number = 0;
  const input = createInterface({ input: createReadStream(path), crlfDelay: Number.POSITIVE_INFINITY });
  for await (const text of input) {
    number++;
    if (text.trim() === '') continue;
    const parsed = parse(text, number);
    if (parsed === null) continue;
    if (typeof parsed === 'string') {
      malformed++;
      if (reasons.length < MAX_REASONS) reasons.push(`line ${number}: ${parsed}`);
    } else lines.push(parsed);
  }
  return { lines, malformed, reasons };
}

/** The one-line error for a trace with no line to replay, saying why. */
export function requireLines(read: ReadTrace, path: string, what: string): void {
  if (read.lines.length > 0) return;
  const why =
    read.malformed === 0
      ? 'it has no lines'
      : `${read.malformed} malformed lines: ${read.reasons.join('; ')}`;
  throw new UserFacingError(`--dataset-path ${path}: no request of the ${what} to replay (${why})`);
}

/** The earliest `numPrompts` lines as requests with prompts from their block ids, and their send times. */
export function replayTrace(read: ReadTrace, options: TraceReplayOptions, what: string): TraceReplay {
  requireLines(read, options.path, what);
  const ordered = [...read.lines].sort((a, b) => a.timestampMs - b.timestampMs);
  const chosen = ordered.slice(0, options.numPrompts);
  const first = chosen[0]?.timestampMs ?? 0;
  const requests: SampleRequest[] = [];
  const offsetsMs: number[] = [];
  for (const line of chosen) {
    const prompt = blockPrompt(line.hashIds, line.inputTokens, {
      blockTokens: options.blockTokens,
      uniqueSalt: String(hashSeed(options.seed, line.sourceId)),
    });
    requests.push({
      prompt,
      promptTokens: options.tokenizer.count(prompt, { addSpecialTokens: true }),
      outputTokens: line.outputTokens,
      sourceId: line.sourceId,
    });
    offsetsMs.push((line.timestampMs - first) / options.speed);
  }
  const notes = [
    `replaying ${chosen.length} requests of the ${what} at ${options.speed}x its pace, prompts synthesized ` +
      `from their lengths and prefix blocks of ${options.blockTokens} tokens`,
  ];
  if (read.malformed > 0) notes.push(`skipped ${read.malformed} malformed lines: ${read.reasons.join('; ')}`);
  if (chosen.length < options.numPrompts)
    notes.push(`only ${chosen.length} requests in the trace (asked for ${options.numPrompts})`);
  return { requests, notes, offsetsMs };
}

export async function sampleMooncakeTrace(options: TraceReplayOptions): Promise<TraceReplay> {
  return replayTrace(await readTraceLines(options.path, parseMooncakeLine), options, 'Mooncake trace');
}
