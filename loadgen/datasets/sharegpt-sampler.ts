// Picks requests from a ShareGPT file by vLLM's rules: keep entries that have `conversations` with at least two
// turns; shuffle them with the seed; walk the shuffled order taking prompt = turn 0 and reply = turn 1 (roles
// are not checked), measure both with the tokenizer, drop pairs that fail the length filter, and stop at
// num_prompts; if too few pass, fill up with duplicates and say so.
//
// Same rules and the same picks: the shuffle is Python's `random.shuffle` after `random.seed(seed)`, reproduced
// draw for draw (loadgen/vllm-random), so a given --seed sends the same prompts in the same order as vLLM's
// client on the same file; so is the oversampling's `random.choice`, after vLLM's reseed.
//
// Memory bound: two passes over the file. Pass 1 streams it (one element at a time, see sharegpt-reader.ts)
// and keeps only the byte range of each eligible entry: 3 numbers, ~24 bytes, per entry, ~2 MB for ShareGPT's
// ~90k. Pass 2 reads back, by position, only the entries it examines in shuffled order, until num_prompts pass.
// So memory is O(entries x 24 bytes + chosen prompts), never O(file).

import { openRegularFile } from '../../src/shared/regular-file.js';
import { UserFacingError } from '../../src/shared/user-facing-error.js';
import type { Tokenizer } from '../tokenizer/tokenizer.js';
import { PythonRandom } from '../vllm-random/python-random.js';
import { oversample, type SampledDataset, type SampleRequest } from './sample-request.js';
import {
  isLengthRejection,
  LENGTH_REJECTIONS,
  lengthRejection,
  SHAREGPT_LENGTH_LIMITS,
  type ShareGptLengthLimits,
} from './sharegpt-length-rules.js';
import {
  readShareGptElementAt,
  ShareGptReader,
  type ShareGptReaderOptions,
  type ShareGptReadStats,
} from './sharegpt-reader.js';

export interface ShareGptSampleOptions {
  path: string;
  numPrompts: number;
  seed: number;
  tokenizer: Tokenizer;
  /** --sharegpt-output-len: request this many output tokens for every prompt, and skip the reply-length check. */
  fixedOutputLen?: number;
  limits?: ShareGptLengthLimits;
  reader?: ShareGptReaderOptions;
  /** --disable-shuffle: walk the file in order. */
  disableShuffle?: boolean;
  /** --no-oversample: return fewer requests than asked rather than duplicates. */
  noOversample?: boolean;
}

export interface ShareGptSampleStats {
  read: ShareGptReadStats;
  /** Well-formed entries dropped for having fewer than two turns. */
  tooFewTurns: number;
  /** Entries with two or more turns: the pool that was shuffled. */
  eligible: number;
  /** Pool entries examined (tokenized) before num_prompts passed the filter. */
  examined: number;
  rejected: Record<string, number>;
}

export interface ShareGptSample extends SampledDataset {
  stats: ShareGptSampleStats;
}

/** Byte ranges of the eligible entries, packed: [start, end, index] per entry. */
export async function scanEligible(
  options: ShareGptSampleOptions,
): Promise<{ ranges: number[]; read: ShareGptReadStats; tooFewTurns: number }> {
  const reader = new ShareGptReader(options.path, options.reader);
  const ranges: number[] = [];
  let tooFewTurns = 0;
  for await (const element of reader) {
    if (element.conversation.conversations.length < 2) {
      tooFewTurns++;
      continue;
    }
    ranges.push(element.start, element.end, element.index);
  }
  return { ranges, read: reader.stats, tooFewTurns };
}

export async function sampleShareGpt(options: ShareGptSampleOptions): Promise<ShareGptSample> {
  const limits = options.limits ?? SHAREGPT_LENGTH_LIMITS;
  const { ranges, read, tooFewTurns } = await scanEligible(options);
  const eligible = ranges.length / 3;
  const order = Array.from({ length: eligible }, (_, i) => i);
  const shuffler = new PythonRandom(options.seed);
  if (options.disableShuffle !== true) shuffler.shuffle(order);

  const requests: SampleRequest[] = [];
  const rejected: Record<string, number> = {};
  let examined = 0;
  const file = await openRegularFile(options.path);
  try {
    for (const slot of order) {
      if (requests.length >= options.numPrompts) break;
      examined++;
      const start = ranges[slot * 3] as number;
      const end = ranges[slot * 3 + 1] as number;
      const index = ranges[slot * 3 + 2] as number;
      const conversation = await readShareGptElementAt(file, start, end, index);
      if (typeof conversation === 'string') {
        rejected[conversation] = (rejected[conversation] ?? 0) + 1;
        continue;
      }
      const [first, second] = conversation.conversations;
      if (first === undefined || second === undefined) continue; // cannot happen: filtered in pass 1
      const promptTokens = options.tokenizer.count(first.value, { addSpecialTokens: true });
      const outputTokens =
        options.fixedOutputLen ?? options.tokenizer.count(second.value, { addSpecialTokens: true });
      const why = lengthRejection(promptTokens, outputTokens, options.fixedOutputLen !== undefined, limits);
      if (why !== undefined) {
        rejected[why] = (rejected[why] ?? 0) + 1;
        continue;
      }
      requests.push({ prompt: first.value, promptTokens, outputTokens, sourceId: conversation.id });
    }
  } finally {
    await file.close();
  }

  const stats = { read, tooFewTurns, eligible, examined, rejected };
  if (requests.length === 0)
    throw new UserFacingError(`ShareGPT file ${options.path}: ${whyNothingUsable(stats)}`);
  const notes: string[] = [];
  if (read.malformed > 0)
    notes.push(`skipped ${read.malformed} malformed entries: ${read.reasons.join('; ')}`);
  if (read.notices.length > 0) notes.push(`file structure: ${read.notices.join('; ')}`);
  // vLLM reseeds Python's global state before oversampling; its later draws (LoRA picks) continue from there.
  const fillUp = requests.length < options.numPrompts && options.noOversample !== true;
  const pythonRandom = fillUp ? new PythonRandom(options.seed) : shuffler;
  const oversampled = fillUp
    ? oversample(
        requests,
        options.numPrompts,
        pythonRandom,
        `ShareGPT file ${options.path}`,
        droppedEntries(stats),
      )
    : undefined;
  if (oversampled !== undefined) notes.push(oversampled);
  if (requests.length < options.numPrompts && options.noOversample === true)
    notes.push(`--no-oversample: only ${requests.length} usable entries, so ${requests.length} requests`);
  return { requests, notes, stats, pythonRandom };
}

/** Where the entries that are not usable went, e.g. "of 11 entries: 4 malformed; 6 dropped by vLLM's length
 *  filter: 3 prompt too short, 3 reply too short"; '' when none was dropped. */
function droppedEntries(stats: ShareGptSampleStats): string {
  const { read } = stats;
  const ruleOrder = (why: string): number => (LENGTH_REJECTIONS as readonly string[]).indexOf(why);
  const lengthFilter = Object.entries(stats.rejected)
    .filter(([why]) => isLengthRejection(why))
    .sort(([a], [b]) => ruleOrder(a) - ruleOrder(b));
  const unreadable = Object.entries(stats.rejected).filter(([why]) => !isLengthRejection(why));
  const filtered = lengthFilter.reduce((sum, [, count]) => sum + count, 0);
  const parts = [
    ...(read.malformed > 0 ? [`${read.malformed} malformed`] : []),
    ...(stats.tooFewTurns > 0 ? [`${stats.tooFewTurns} with fewer than the two turns a request needs`] : []),
    ...unreadable.map(([why, count]) => `${count} ${why}`),
    ...(filtered > 0
      ? [
          `${filtered} dropped by vLLM's length filter: ${lengthFilter.map(([why, count]) => `${count} ${why}`).join(', ')}`,
        ]
      : []),
  ];
  return parts.length === 0 ? '' : `of ${plural(read.elements, 'entry', 'entries')}: ${parts.join('; ')}`;
}

/** Why no request could be taken from the file, from the first step that left nothing. */
function whyNothingUsable(stats: ShareGptSampleStats): string {
  const { read } = stats;
  if (read.elements === 0) return 'the array is empty, so there is no conversation to send';
  if (read.valid === 0)
    return `none of its ${plural(read.elements, 'entry', 'entries')} is a well-formed conversation (${read.reasons.join('; ')})`;
  if (stats.eligible === 0)
    return `none of its ${plural(read.valid, 'conversation', 'conversations')} has the two turns a request needs (a prompt and a reply)`;
  const reasons = Object.entries(stats.rejected).map(([why, count]) => `${count} ${why}`);
  return `every conversation failed the length filter (${reasons.join('; ')})`;
}

const plural = (count: number, one: string, many: string): string => `${count} ${count === 1 ? one : many}`;
