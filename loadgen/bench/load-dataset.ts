// --dataset-name and its flags -> the requests to send. Without --dataset-path, ShareGPT means the bundled
// sample (loadgen/data/sharegpt-sample.json), so a first run needs no download.

import type { Stats } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { recordsFilesAt } from '../../src/measure/record-files.js';
import type { EndpointFamily } from '../../src/protocols/index.js';
import { checkRegularFile, fileErrorReason, NotRegularFileError } from '../../src/shared/regular-file.js';
import { UsageError, UserFacingError } from '../../src/shared/user-facing-error.js';
import { loadAgenticTrace } from '../agent/agentic-dataset.js';
import type { SampledDataset } from '../datasets/sample-request.js';
import type { SessionSpan } from '../datasets/sharegpt-sessions.js';
import type { Tokenizer } from '../tokenizer/tokenizer.js';
import type { AgentSession } from '../traces/agent-sessions.js';
import { sampleTimedTrace, TIMED_TRACE_DEFAULTS, type TimedTraceLabels } from '../traces/timed-trace.js';

export const DATASET_NAMES = [
  'sharegpt',
  'random',
  'prefix_repetition',
  'jsonl',
  'custom',
  'records',
  'mooncake',
  'agentic',
  'aiperf_sessions',
  'burstgpt',
  'timed_trace',
] as const;
export type DatasetName = (typeof DATASET_NAMES)[number];

/** dist/loadgen/bench -> loadgen/data (the data folder is shipped, not compiled). */
export const BUNDLED_SHAREGPT_SAMPLE = fileURLToPath(
  new URL('../../../loadgen/data/sharegpt-sample.json', import.meta.url),
);

export interface DatasetSettings {
  readonly name: DatasetName;
  readonly path?: string;
  readonly numPrompts: number;
  readonly seed: number;
  readonly sharegptOutputLen?: number;
  readonly randomInputLen?: number;
  readonly randomOutputLen?: number;
  readonly randomRangeRatio?: number;
  /** --random-range-ratio's JSON form: the output lengths' own ratio. */
  readonly randomOutputRangeRatio?: number;
  readonly randomPrefixLen?: number;
  readonly prefixRepetitionPrefixLen?: number;
  readonly prefixRepetitionSuffixLen?: number;
  readonly prefixRepetitionNumPrefixes?: number;
  readonly prefixRepetitionOutputLen?: number;
  readonly customOutputLen?: number;
  /** --shared-system-prompt-length: every request starts with the same system prompt of this many tokens. */
  readonly sharedSystemPromptTokens?: number;
  /** --disable-shuffle: file order instead of the seeded shuffle (sharegpt, jsonl, prefix_repetition). */
  readonly disableShuffle?: boolean;
  /** --no-oversample: fewer requests rather than duplicates when too few entries pass. */
  readonly noOversample?: boolean;
  readonly replaySpeed: number;
  /** Traces: tokens per prefix block id (Mooncake's 512). */
  readonly traceBlockTokens?: number;
  /** --multi-turn: ShareGPT conversations as sessions, each with at most this many turns (Infinity: all). */
  readonly sessionTurns?: number;
  /** agentic: exactly this many sessions, the trace's repeated if it has fewer (a sweep level's). */
  readonly agentSessions?: number;
  /** Records replays: the endpoint family requests go to; recorded bodies of other endpoints are skipped. */
  readonly endpointFamily?: EndpointFamily;
  /** timed_trace: vLLM's --timed-trace-* flags, and --self-timed (false: its timestamps are not the schedule). */
  readonly timedTrace?: TimedTraceSettings;
}

export interface TimedTraceSettings {
  readonly chunkTokens: number;
  readonly secMultiplier: number;
  readonly labels: TimedTraceLabels;
  readonly selfTimed: boolean;
}

export interface LoadedDataset extends SampledDataset {
  /** --dataset-name agentic: the sessions whose turns `requests` are (session after session). */
  readonly agentSessions?: readonly AgentSession[];
  /** agentic: each session's recorded start divided by --replay-speed (the engine's schedule, not the requests');
   *  null when the trace has no start times. */
  readonly agentStartsMs?: readonly number[] | null;
  /** agentic: tokens per hash id block. */
  readonly agentBlockTokens?: number;
  /** --multi-turn: how `requests` (every turn, session after session) group into sessions. */
  readonly sessions?: readonly SessionSpan[];
  /** Only for replays: the recorded schedule. */
  readonly recordedOffsetsMs?: number[];
  /** vLLM's --self-timed: the recorded schedule is kept even with --request-rate or a ramp-up, which it ignores. */
  readonly selfTimed?: true;
  /** What was read, for the run's header lines. */
  readonly description: string;
}

const SHAREGPT_SHAPE = 'a ShareGPT-format file (a JSON array of {"conversations": [...]})';
/** What a gateway records file holds, in the words of an error about one. */
export const RECORDS_FILE_SHAPE = "a tokenmeter gateway's records file (JSON lines)";

/** Datasets that carry their own send times (replayed unless a --request-rate or ramp-up replaces them). */
const TIMED_DATASETS: ReadonlySet<DatasetName> = new Set(['records', 'mooncake', 'burstgpt', 'timed_trace']);

export function datasetHasSchedule(name: DatasetName): boolean {
  return TIMED_DATASETS.has(name);
}

const MOONCAKE_SHAPE =
  'a Mooncake-style trace (JSON lines of {"timestamp", "input_length", "output_length", "hash_ids"})';
const BURSTGPT_SHAPE = 'a BurstGPT CSV (Timestamp,Model,Request tokens,Response tokens,...)';
const TIMED_TRACE_SHAPE =
  'a vLLM timed trace (JSON lines of {"timestamp", "input_length", "output_length", "hash_ids"}, or the names --timed-trace-label-* give)';

/** Datasets read from a file the user must name (sharegpt falls back to the bundled sample). */
const NEED_A_PATH: ReadonlySet<DatasetName> = new Set([
  'jsonl',
  'custom',
  'records',
  'mooncake',
  'agentic',
  'aiperf_sessions',
  'burstgpt',
  'timed_trace',
]);

/** The usage error for a dataset that needs --dataset-path and has none; checked as the flags are read. */
export function checkDatasetPath(settings: Pick<DatasetSettings, 'name' | 'path'>): void {
  if (NEED_A_PATH.has(settings.name) && settings.path === undefined)
    throw new UsageError(`--dataset-name ${settings.name} needs --dataset-path FILE`);
}

function needPath(settings: Pick<DatasetSettings, 'name' | 'path'>): string {
  checkDatasetPath(settings);
  return settings.path as string;
}

/** What each dataset read from a file holds, in the words of an error about the file. */
const FILE_SHAPES: Readonly<Partial<Record<DatasetName, string>>> = {
  sharegpt: SHAREGPT_SHAPE,
  jsonl: 'one JSON object per line, {"prompt": ...}',
  custom: 'one JSON object per line, {"prompt": ...}',
  records: RECORDS_FILE_SHAPE,
  mooncake: MOONCAKE_SHAPE,
  agentic:
    'an agentic trace (JSON lines of {"session_id", "turn", "timestamp", "wait_ms", "input_length", ...})',
  aiperf_sessions:
    'an AIPerf Mooncake trace (JSON lines of {"session_id", "input_length", "output_length", ...})',
  burstgpt: BURSTGPT_SHAPE,
  timed_trace: TIMED_TRACE_SHAPE,
};

/** The dataset's files checked as a run reads them, before anything is read or sent (also the doctor's check of
 *  a bench config): each a readable, non-empty file. The bundled ShareGPT sample when none is named. */
export async function checkDatasetFiles(settings: Pick<DatasetSettings, 'name' | 'path'>): Promise<void> {
  const shape = FILE_SHAPES[settings.name];
  if (shape === undefined) return;
  const path = settings.name === 'sharegpt' ? (settings.path ?? BUNDLED_SHAREGPT_SAMPLE) : needPath(settings);
  // A gateway run with --workers wrote one file per worker beside the path it was given.
  const files = settings.name === 'records' ? recordsFilesAt(path) : [path];
  for (const file of files) await checkInputFile('--dataset-path', file, shape);
}

export async function loadDataset(settings: DatasetSettings, tokenizer: Tokenizer): Promise<LoadedDataset> {
  const dataset = await loadNamedDataset(settings, tokenizer);
  const tokens = settings.sharedSystemPromptTokens ?? 0;
  if (tokens === 0) return dataset;
  const { withSharedSystemPrompt } = await import('../datasets/shared-system-prompt.js');
  return withSharedSystemPrompt(dataset, { tokens, seed: settings.seed, tokenizer });
}

// Each dataset's reader is loaded when a run names it: a run reads one, and the others' modules cost start-up time.
async function loadNamedDataset(settings: DatasetSettings, tokenizer: Tokenizer): Promise<LoadedDataset> {
  await checkDatasetFiles(settings);
  const common = { numPrompts: settings.numPrompts, seed: settings.seed, tokenizer };
  switch (settings.name) {
    case 'sharegpt': {
      const path = settings.path ?? BUNDLED_SHAREGPT_SAMPLE;
      await checkInputFile('--dataset-path', path, SHAREGPT_SHAPE);
      const which = settings.path === undefined ? 'the bundled ShareGPT-format sample' : `ShareGPT ${path}`;
      if (settings.sessionTurns !== undefined) {
        const { sampleShareGptSessions } = await import('../datasets/sharegpt-sessions.js');
        const sessions = await sampleShareGptSessions({
          ...common,
          path,
          maxTurns: settings.sessionTurns,
          ...(settings.sharegptOutputLen === undefined ? {} : { fixedOutputLen: settings.sharegptOutputLen }),
        });
        return { ...sessions, description: `${which}, as multi-turn sessions` };
      }
      const { sampleShareGpt } = await import('../datasets/sharegpt-sampler.js');
      const { NotAJsonArrayError } = await import('../datasets/json-array-splitter.js');
      const sample = await sampleShareGpt({
        ...common,
        path,
        ...(settings.sharegptOutputLen === undefined ? {} : { fixedOutputLen: settings.sharegptOutputLen }),
        ...(settings.disableShuffle === true ? { disableShuffle: true } : {}),
        ...(settings.noOversample === true ? { noOversample: true } : {}),
      }).catch((error: unknown) => {
        if (!(error instanceof NotAJsonArrayError)) throw error;
        throw new UserFacingError(`--dataset-path ${path} is not ${SHAREGPT_SHAPE}: ${error.message}`, {
          cause: error,
        });
      });
      return { ...sample, description: which };
    }
    case 'random': {
      const { sampleRandom } = await import('../datasets/random-dataset.js');
      const sample = sampleRandom({
        ...common,
        ...(settings.randomInputLen === undefined ? {} : { inputLen: settings.randomInputLen }),
        ...(settings.randomOutputLen === undefined ? {} : { outputLen: settings.randomOutputLen }),
        ...(settings.randomRangeRatio === undefined ? {} : { rangeRatio: settings.randomRangeRatio }),
        ...(settings.randomOutputRangeRatio === undefined
          ? {}
          : { outputRangeRatio: settings.randomOutputRangeRatio }),
        ...(settings.randomPrefixLen === undefined ? {} : { prefixLen: settings.randomPrefixLen }),
      });
      return { ...sample, description: 'random prompts' };
    }
    case 'prefix_repetition': {
      const { samplePrefixRepetition } = await import('../datasets/prefix-repetition-dataset.js');
      const sample = samplePrefixRepetition({
        ...common,
        ...(settings.prefixRepetitionPrefixLen === undefined
          ? {}
          : { prefixLen: settings.prefixRepetitionPrefixLen }),
        ...(settings.prefixRepetitionSuffixLen === undefined
          ? {}
          : { suffixLen: settings.prefixRepetitionSuffixLen }),
        ...(settings.prefixRepetitionNumPrefixes === undefined
          ? {}
          : { numPrefixes: settings.prefixRepetitionNumPrefixes }),
        ...(settings.prefixRepetitionOutputLen === undefined
          ? {}
          : { outputLen: settings.prefixRepetitionOutputLen }),
        ...(settings.disableShuffle === true ? { disableShuffle: true } : {}),
      });
      return { ...sample, description: 'random prompts with repeated prefixes (prefix_repetition)' };
    }
    case 'jsonl':
    case 'custom': {
      const path = needPath(settings);
      const { sampleJsonl } = await import('../datasets/jsonl-dataset.js');
      const sample = await sampleJsonl({
        ...common,
        path,
        ...(settings.customOutputLen === undefined ? {} : { defaultOutputTokens: settings.customOutputLen }),
        ...(settings.disableShuffle === true ? { keepOrder: true } : {}),
      });
      return { ...sample, description: `JSONL prompts ${path}` };
    }
    case 'records': {
      const path = needPath(settings);
      const { sampleGatewayRecords } = await import('./records-dataset.js');
      const replay = await sampleGatewayRecords({
        ...common,
        path,
        speed: settings.replaySpeed,
        ...(settings.endpointFamily === undefined ? {} : { endpointFamily: settings.endpointFamily }),
      });
      return {
        requests: replay.requests,
        notes: replay.notes,
        recordedOffsetsMs: replay.offsetsMs,
        description: `gateway records ${path}`,
      };
    }
    case 'mooncake':
    case 'burstgpt': {
      const path = needPath(settings);
      const mooncake = settings.name === 'mooncake';
      const { DEFAULT_TRACE_BLOCK_TOKENS } = await import('../traces/block-prompts.js');
      const options = {
        ...common,
        path,
        speed: settings.replaySpeed,
        blockTokens: settings.traceBlockTokens ?? DEFAULT_TRACE_BLOCK_TOKENS,
      };
      const replay = mooncake
        ? await (await import('../traces/mooncake-trace.js')).sampleMooncakeTrace(options)
        : await (await import('../traces/burstgpt-trace.js')).sampleBurstGptTrace(options);
      return {
        requests: replay.requests,
        notes: replay.notes,
        recordedOffsetsMs: replay.offsetsMs,
        description: `${mooncake ? 'Mooncake' : 'BurstGPT'} trace ${path}`,
      };
    }
    case 'agentic':
    case 'aiperf_sessions': {
      const path = needPath(settings);
      const trace = await loadAgenticTrace({
        path,
        format: settings.name === 'agentic' ? 'tokenmeter' : 'aiperf',
        ...(settings.traceBlockTokens === undefined ? {} : { blockTokens: settings.traceBlockTokens }),
        speed: settings.replaySpeed,
        ...(settings.agentSessions === undefined
          ? { maxSessions: settings.numPrompts }
          : { sessions: settings.agentSessions }),
      });
      return {
        requests: trace.requests,
        notes: trace.notes,
        agentSessions: trace.sessions,
        agentStartsMs: trace.offsetsMs,
        agentBlockTokens: trace.blockTokens,
        description: `${settings.name === 'agentic' ? 'agentic' : 'AIPerf session'} trace ${path} (${trace.sessions.length} sessions)`,
      };
    }
    case 'timed_trace': {
      const path = needPath(settings);
      const timed = settings.timedTrace ?? { ...TIMED_TRACE_DEFAULTS, selfTimed: true };
      const replay = await sampleTimedTrace({ ...common, path, speed: settings.replaySpeed, ...timed });
      const description = `timed trace ${path}`;
      // --no-self-timed: the trace's times are dropped and the run's rate schedule sends it, as in vLLM.
      if (!timed.selfTimed) return { requests: replay.requests, notes: replay.notes, description };
      return {
        requests: replay.requests,
        notes: replay.notes,
        recordedOffsetsMs: replay.offsetsMs,
        selfTimed: true,
        description,
      };
    }
  }
}

// ---- Input files, checked before anything is sent ----
// A file a run reads (--dataset-path, --gateway-records), checked before anything is sent: a typo, a folder, a
// file this user cannot read or an empty file is one line that names the flag and says what was expected, not an
// ENOENT stack from the stream that would have read it.

/**
 * Throws a UserFacingError unless `path` is a file this process can read, and not empty unless `mayBeEmpty` (a
 * gateway's records file exists from the gateway's start, empty until its first request ends, and is read when
 * the run is over).
 */
export async function checkInputFile(
  flag: string,
  path: string,
  whatItHolds: string,
  mayBeEmpty = false,
): Promise<void> {
  const named = `${flag} ${path}`;
  let stats: Stats;
  try {
    stats = await checkRegularFile(path);
  } catch (error) {
    if (error instanceof NotRegularFileError) {
      const what = error.isFolder ? ' is a folder: name the file in it' : `: ${error.message}`;
      throw new UserFacingError(`${named}${what}`, { cause: error });
    }
    // The article's bench_config.json is a settings file: named here, it was meant for --config.
    const hint =
      (error as NodeJS.ErrnoException).code === 'ENOENT' && /config/i.test(basename(path))
        ? '; a settings file goes to --config'
        : '';
    throw new UserFacingError(`${named}: ${fileErrorReason(error)}${hint}`, { cause: error });
  }
  if (stats.size === 0 && !mayBeEmpty)
    throw new UserFacingError(`${named} is empty: expected ${whatItHolds}`);
}
