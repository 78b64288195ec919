// vLLM's `timed_trace` dataset (vllm/benchmarks/datasets/datasets.py, class TimedTrace, at the pinned commit):
// JSON lines with a timestamp, an input and an output length and prefix block ids, under field names the
// --timed-trace-label-* flags choose. What vLLM does, and so what this does:
// - lines are taken in file order, the first --num-prompts of them, never shuffled, sorted or oversampled;
// - with --self-timed (its default for this dataset) line i is sent at its timestamp times
//   --timed-trace-sec-multiplier seconds after the run starts: absolute, not relative to the first line, and never
//   before the line above it (vLLM's loop sends in file order, so an earlier timestamp further down goes right
//   after its predecessor);
// - the prompt is --timed-trace-chunk-hash-size tokens per hash id, in order, the last block cut to what is left
//   of input_length, and it ends where the ids end: ids that cover fewer tokens than input_length give a shorter
//   prompt (vLLM's prompt_len is what the ids cover), which a note counts here;
// - a cut block is its own text (vLLM keys blocks by id and length).
// vLLM sends token ids drawn from the tokenizer's vocabulary; tokenmeter sends words (block-prompts.ts), one token
// each under the built-in tokenizer.

import { hashSeed } from '../../src/shared/random.js';
import type { SampleRequest } from '../datasets/sample-request.js';
import type { Tokenizer } from '../tokenizer/tokenizer.js';
import { blockPrompt } from './block-prompts.js';
import {
  readTraceLines,
  requireLines,
  type TraceLineFormat,
  type TraceReplay,
  traceLineOf,
} from './mooncake-trace.js';

/** The --timed-trace-label-* flags: the names of a line's fields. */
export interface TimedTraceLabels {
  readonly timestamp: string;
  readonly inputLength: string;
  readonly outputLength: string;
  readonly hashIds: string;
}

/** vLLM's defaults for the timed_trace flags. */
export const TIMED_TRACE_DEFAULTS = {
  chunkTokens: 16,
  secMultiplier: 1,
  labels: {
    timestamp: 'timestamp',
    inputLength: 'input_length',
    outputLength: 'output_length',
    hashIds: 'hash_ids',
  },
} as const satisfies { chunkTokens: number; secMultiplier: number; labels: TimedTraceLabels };

export interface TimedTraceOptions {
  readonly path: string;
  readonly numPrompts: number;
  readonly seed: number;
  readonly tokenizer: Tokenizer;
  /** --timed-trace-chunk-hash-size: tokens per hash id. */
  readonly chunkTokens: number;
  /** --timed-trace-sec-multiplier: a timestamp times this is seconds. */
  readonly secMultiplier: number;
  readonly labels: TimedTraceLabels;
  /** --replay-speed: 2 = twice as fast. */
  readonly speed: number;
}

const WHAT = 'timed trace';

export async function sampleTimedTrace(options: TimedTraceOptions): Promise<TraceReplay> {
  const format: TraceLineFormat = {
    ...options.labels,
    msPerUnit: options.secMultiplier * 1000,
    unitName: `seconds / --timed-trace-sec-multiplier (${options.secMultiplier})`,
  };
  const read = await readTraceLines(options.path, (text, line) => traceLineOf(text, line, format));
  requireLines(read, options.path, WHAT);
  const chosen = read.lines.slice(0, options.numPrompts);
  const requests: SampleRequest[] = [];
  const offsetsMs: number[] = [];
  let cut = 0;
  let outOfOrder = 0;
  let sendAtMs = 0;
  for (const line of chosen) {
    const covered = Math.min(line.inputTokens, line.hashIds.length * options.chunkTokens);
    if (covered < line.inputTokens) cut++;
    const prompt = blockPrompt(line.hashIds, covered, {
      blockTokens: options.chunkTokens,
      uniqueSalt: String(hashSeed(options.seed, line.sourceId)),
      cutBlockOwnText: true,
    });
    requests.push({
      prompt,
      promptTokens: options.tokenizer.count(prompt, { addSpecialTokens: true }),
      outputTokens: line.outputTokens,
      sourceId: line.sourceId,
    });
    if (line.timestampMs < sendAtMs) outOfOrder++;
    sendAtMs = Math.max(sendAtMs, line.timestampMs);
    offsetsMs.push(sendAtMs / options.speed);
  }
  const notes = [
    `timed trace: ${chosen.length} requests in file order, each at its timestamp x ${options.secMultiplier} s` +
      (options.speed === 1 ? '' : ` / ${options.speed}`) +
      `, prompts of ${options.chunkTokens}-token blocks per hash id`,
  ];
  const firstMs = offsetsMs[0] ?? 0;
  if (firstMs > 0)
    notes.push(
      `the first request is sent ${(firstMs / 1000).toFixed(3)} s after the start: timed_trace timestamps count from the run's start, not from the first line (as vLLM)`,
    );
  if (cut > 0)
    notes.push(
      `${cut} requests' hash ids cover fewer tokens than their input length: their prompts end with the ids, as vLLM's do (the trace's block size is --timed-trace-chunk-hash-size; Mooncake's is 512)`,
    );
  if (outOfOrder > 0)
    notes.push(
      `${outOfOrder} lines have a timestamp earlier than a line above them: each is sent right after that line, as vLLM sends in file order`,
    );
  if (read.malformed > 0) notes.push(`skipped ${read.malformed} malformed lines: ${read.reasons.join('; ')}`);
  if (chosen.length < options.numPrompts)
    notes.push(
      `only ${chosen.length} requests in the trace (asked for ${options.numPrompts}; never oversampled)`,
    );
  return { requests, notes, offsetsMs };
}
