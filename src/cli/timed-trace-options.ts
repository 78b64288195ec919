// vLLM's timed_trace flags (datasets.py's timed-trace group and serve.py's --self-timed at the pinned commit), and
// the settings and header lines they make. vLLM refuses --self-timed/--no-self-timed with any other dataset, and so
// does this; the --timed-trace-* flags are read only with timed_trace (vLLM ignores them elsewhere; a line says so).

import type { TimedTraceSettings } from '../../loadgen/bench/load-dataset.js';
import { TIMED_TRACE_DEFAULTS } from '../../loadgen/traces/timed-trace.js';
import type { OptionSpec, OptionValues } from '../shared/option-schema.js';
import { UsageError } from '../shared/user-facing-error.js';

const LABELS = {
  'timed-trace-label-timestamp': 'timestamp',
  'timed-trace-label-input-length': 'inputLength',
  'timed-trace-label-output-length': 'outputLength',
  'timed-trace-label-hash-ids': 'hashIds',
} as const;

/** The flag naming the JSON field of one of a line's parts. */
function label<N extends keyof typeof LABELS>(name: N) {
  const key = LABELS[name];
  return {
    name,
    type: 'string',
    valueName: 'FIELD',
    help: `timed_trace: the JSON field of each line's ${key === 'hashIds' ? 'hash ids' : key.replace(/L/, ' l')} (default ${TIMED_TRACE_DEFAULTS.labels[key]})`,
  } as const satisfies OptionSpec;
}

export const TIMED_TRACE_OPTIONS = [
  {
    name: 'timed-trace-chunk-hash-size',
    type: 'integer',
    min: 1,
    valueName: 'N',
    help: `timed_trace: prompt tokens per hash id (default ${TIMED_TRACE_DEFAULTS.chunkTokens}, vLLM's; Mooncake traces use 512)`,
  },
  {
    name: 'timed-trace-sec-multiplier',
    type: 'number',
    min: 0,
    valueName: 'X',
    help: `timed_trace: timestamps times X are seconds (default ${TIMED_TRACE_DEFAULTS.secMultiplier}; 0.001 for milliseconds)`,
  },
  label('timed-trace-label-timestamp'),
  label('timed-trace-label-input-length'),
  label('timed-trace-label-output-length'),
  label('timed-trace-label-hash-ids'),
  {
    name: 'self-timed',
    type: 'boolean',
    help: 'timed_trace: send each line at its own timestamp (the default there), whatever --request-rate says',
  },
  {
    name: 'no-self-timed',
    type: 'boolean',
    help: 'timed_trace: ignore its timestamps; --request-rate, --burstiness and ramp-ups schedule it',
  },
] as const satisfies readonly OptionSpec[];

/** The flags that carry a value (the switches are checked on their own). */
const TRACE_FLAGS = TIMED_TRACE_OPTIONS.filter((spec) => spec.type !== 'boolean').map((spec) => spec.name);

export interface TimedTraceParts {
  /** Set for --dataset-name timed_trace. */
  readonly settings?: TimedTraceSettings;
  /** Lines for the run's header. */
  readonly notes: string[];
}

/** The timed_trace settings from the flags (none has a default in its spec, so a value is one the user gave). */
export function timedTraceParts(
  o: OptionValues<typeof TIMED_TRACE_OPTIONS> & { readonly 'ignore-eos': boolean },
  run: { datasetName: string; completions: boolean; requestRate: boolean; rampUp: boolean },
): TimedTraceParts {
  const self = o['self-timed'];
  const noSelf = o['no-self-timed'];
  if (run.datasetName !== 'timed_trace') {
    if (self || noSelf)
      throw new UsageError(
        '--self-timed/--no-self-timed apply to --dataset-name timed_trace only (vLLM refuses them elsewhere too); other traces: --dataset-name records, mooncake or burstgpt replay their own times',
      );
    const stray = TRACE_FLAGS.filter((flag) => o[flag] !== undefined);
    return {
      notes: stray.map(
        (flag) => `--${flag} applies to --dataset-name timed_trace only and changes nothing here`,
      ),
    };
  }
  if (self && noSelf) throw new UsageError('give --self-timed or --no-self-timed, not both');
  const selfTimed = !noSelf;
  const notes: string[] = [];
  if (!o['ignore-eos'])
    notes.push('timed_trace: ignore_eos is sent so each answer runs to its output length, as vLLM does');
  if (selfTimed && (run.requestRate || run.rampUp))
    notes.push(
      "--self-timed: the trace's timestamps are the schedule and --request-rate, --burstiness and ramp-ups are ignored, as vLLM ignores them (--no-self-timed to use them)",
    );
  if (!run.completions)
    notes.push(
      'timed_trace: vLLM refuses backends other than openai and vllm (it sends the prompts as token ids to completions); tokenmeter sends them as text to this one',
    );
  return {
    settings: {
      chunkTokens: o['timed-trace-chunk-hash-size'] ?? TIMED_TRACE_DEFAULTS.chunkTokens,
      secMultiplier: o['timed-trace-sec-multiplier'] ?? TIMED_TRACE_DEFAULTS.secMultiplier,
      // An empty field name is none given.
      labels: {
        timestamp: o['timed-trace-label-timestamp'] || TIMED_TRACE_DEFAULTS.labels.timestamp,
        inputLength: o['timed-trace-label-input-length'] || TIMED_TRACE_DEFAULTS.labels.inputLength,
        outputLength: o['timed-trace-label-output-length'] || TIMED_TRACE_DEFAULTS.labels.outputLength,
        hashIds: o['timed-trace-label-hash-ids'] || TIMED_TRACE_DEFAULTS.labels.hashIds,
      },
      selfTimed,
    },
    notes,
  };
}
