// A custom prompt list, one JSON object per line: {"prompt": "...", "output_tokens": 200}. `output_tokens` is
// optional (default: --custom-output-len, 256 as in vLLM's `custom` dataset). Like vLLM, the prompts are
// shuffled with the seed (unless disabled), the first num_prompts are taken, and too few are oversampled.
// Blank lines are ignored; a malformed line is counted and skipped, never fatal.
//
// Memory bound: reads line by line but keeps every valid prompt (it must, to shuffle): fine for custom lists,
// which are the user's own and small; use the ShareGPT format for very large sets.

import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { jsonObjectOfLine } from '../../src/shared/json-object.js';
import { hashSeed, SeededRandom } from '../../src/shared/random.js';
import { UserFacingError } from '../../src/shared/user-facing-error.js';
import type { Tokenizer } from '../tokenizer/tokenizer.js';
import { PythonRandom } from '../vllm-random/python-random.js';
import { oversample, type SampledDataset, type SampleRequest } from './sample-request.js';

export const DEFAULT_JSONL_OUTPUT_TOKENS = 256;
const MAX_REASONS = 5;

export interface JsonlDatasetOptions {
  path: string;
  numPrompts: number;
  seed: number;
  tokenizer: Tokenizer;
  /** Output tokens for lines without `output_tokens`. */
  defaultOutputTokens?: number;
  /** Keep file order instead of shuffling (vLLM: --disable-shuffle). */
  keepOrder?: boolean;
}

export interface JsonlLine {
  line: number;
  prompt: string;
  outputTokens: number | undefined;
}

export interface JsonlReadStats {
  lines: number;
  valid: number;
  malformed: number;
  reasons: string[];
}

/** Parses one non-blank line; a string result is why it was rejected. */
export function parseJsonlLine(text: string, line: number): JsonlLine | string {
  const record = jsonObjectOfLine(text);
  if (typeof record === 'string') return record;
  const prompt = record['prompt'];
  if (typeof prompt !== 'string' || prompt === '') return "'prompt' missing or not a non-empty string";
  const output = record['output_tokens'];
  if (output !== undefined && !(typeof output === 'number' && Number.isInteger(output) && output > 0)) {
    return "'output_tokens' must be a whole number above 0";
  }
  return { line, prompt, outputTokens: output };
}

export async function readJsonlPrompts(path: string): Promise<{ lines: JsonlLine[]; stats: JsonlReadStats }> {
  const stats: JsonlReadStats = { lines: 0, valid: 0, malformed: 0, reasons: [] };
  const lines: JsonlLine[] = [];
  const input = createReadStream(path, { encoding: 'utf8' });
  const reader = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  try {
    for await (const text of reader) {
      stats.lines++;
      if (text.trim() === '') continue;
      const parsed = parseJsonlLine(text, stats.lines);
      if (typeof parsed === 'string') {
        stats.malformed++;
        if (stats.reasons.length < MAX_REASONS) stats.reasons.push(`line ${stats.lines}: ${parsed}`);
        continue;
      }
      stats.valid++;
      lines.push(parsed);
    }
  } finally {
    reader.close();
    input.destroy();
  }
  return { lines, stats };
}

export async function sampleJsonl(
  options: JsonlDatasetOptions,
): Promise<SampledDataset & { stats: JsonlReadStats }> {
  const { lines, stats } = await readJsonlPrompts(options.path);
  if (lines.length === 0) {
    const why = stats.malformed === 0 ? 'only blank lines' : `no usable line (${stats.reasons.join('; ')})`;
    throw new UserFacingError(`JSONL file ${options.path} has ${why}: expected {"prompt": "..."} per line`);
  }
  if (options.keepOrder !== true) new SeededRandom(hashSeed('jsonl', options.seed)).shuffle(lines);
  const defaultOutput = options.defaultOutputTokens ?? DEFAULT_JSONL_OUTPUT_TOKENS;
  const requests: SampleRequest[] = lines.slice(0, options.numPrompts).map((entry) => ({
    prompt: entry.prompt,
    promptTokens: options.tokenizer.count(entry.prompt, { addSpecialTokens: true }),
    outputTokens: entry.outputTokens ?? defaultOutput,
    sourceId: `line ${entry.line}`,
  }));
  const notes: string[] = [];
  if (stats.malformed > 0)
    notes.push(`skipped ${stats.malformed} malformed lines: ${stats.reasons.join('; ')}`);
  const oversampled = oversample(
    requests,
    options.numPrompts,
    new PythonRandom(options.seed),
    `JSONL file ${options.path}`,
  );
  if (oversampled !== undefined) notes.push(oversampled);
  return { requests, notes, stats };
}
