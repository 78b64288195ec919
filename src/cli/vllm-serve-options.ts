// The flags of `vllm bench serve` at the pinned commit (vLLM 009e6d4a: vllm/benchmarks/serve.py and
// datasets/datasets.py) that bench did not have before, grouped here so that every one of vLLM's flags is
// accepted. Those that change the run are read in vllm-serve-settings.ts; those that need what tokenmeter does
// not have (vLLM's server internals, its plots, datasets we do not ship) are accepted with one line saying what
// they would do and that they did not (ACCEPTED_ONLY). docs/loadgen-reference.md's flag table lists them all.

import { LORA_ASSIGNMENTS } from '../../loadgen/bench/prepare-requests.js';
import type { OptionSpec } from '../shared/option-schema.js';

/** The commit of vLLM whose `vllm bench serve` flags, summary and result JSON tokenmeter follows. */
export const PINNED_VLLM_COMMIT = '009e6d4a1cd6ba3fb2a9fc00f4ec06f5297232a1';

/** vLLM's datasets that tokenmeter does not have: named, then refused with what to use instead. */
export const VLLM_ONLY_DATASETS = [
  'sonnet',
  'random-mm',
  'random-rerank',
  'hf',
  'custom_audio',
  'custom_image',
  'spec_bench',
  'speed_bench',
  'custom_mm',
] as const;

/** Why a vLLM-only dataset cannot run here, where a word more than "not here" helps. */
export const VLLM_ONLY_DATASET_NOTES: Readonly<Partial<Record<(typeof VLLM_ONLY_DATASETS)[number], string>>> =
  {
    custom_mm:
      "vLLM's multimodal custom dataset (JSONL prompts with images), which tokenmeter does not have: it sends text only",
  };

/** A sampling flag: sent in every request's body under vLLM's name (the flag's, with '_') when given, and only
 *  then (--temperature, bench's own flag, likewise). */
const sampling = <N extends string, T extends 'number' | 'integer'>(name: N, type: T) =>
  ({
    name,
    type,
    valueName: type === 'integer' ? 'N' : 'X',
    help: `Send ${name.replace(/-/g, '_')} in every body (vLLM's sampling parameter; unset: not sent, the server decides)`,
  }) as const satisfies OptionSpec;

export const SAMPLING_OPTIONS = [
  sampling('top-p', 'number'),
  sampling('top-k', 'integer'),
  sampling('min-p', 'number'),
  sampling('frequency-penalty', 'number'),
  sampling('presence-penalty', 'number'),
  sampling('repetition-penalty', 'number'),
] as const;

export const VLLM_SERVE_OPTIONS = [
  {
    name: 'input-len',
    type: 'integer',
    min: 0,
    valueName: 'N',
    help: 'General input length: sets --random-input-len (vLLM)',
  },
  {
    name: 'output-len',
    type: 'integer',
    min: 1,
    valueName: 'N',
    help: 'General output length: sets --random-output-len, --sharegpt-output-len and --custom-output-len (vLLM)',
  },
  ...SAMPLING_OPTIONS,
  {
    name: 'logprobs',
    type: 'integer',
    min: 0,
    valueName: 'N',
    help: 'Completions backends: send logprobs N in every body (vLLM sends it with completions only)',
  },
  {
    name: 'num-warmups',
    type: 'integer',
    min: 0,
    default: 0,
    valueName: 'N',
    help: 'Send the first request N times before the run (within --max-concurrency); not recorded or counted',
  },
  {
    name: 'probe-request-rate',
    type: 'number',
    min: 0,
    default: 0,
    valueName: 'RPS',
    help: "Beside the run, one-token probes ('Hi') one after another at this rate, past --max-concurrency; their latency is reported apart (vLLM's Probe Requests; 0: none)",
  },
  {
    name: 'ready-check-timeout-sec',
    type: 'integer',
    min: 0,
    default: 0,
    valueName: 'S',
    help: 'Before the run, send the first request every 5 s until it succeeds, for at most S seconds (0: no check)',
  },
  {
    name: 'lora-modules',
    type: 'list',
    multipleValues: true,
    valueName: 'NAME ...',
    help: "Each request's model is one of these LoRA adapters (vLLM's random pick per request, same --seed, same picks)",
  },
  {
    name: 'lora-assignment',
    type: 'string',
    choices: LORA_ASSIGNMENTS,
    default: 'random',
    help: 'How --lora-modules are given out: random (per request, seeded) or round-robin',
  },
  {
    name: 'insecure',
    type: 'boolean',
    help: 'Do not verify the server TLS certificate (self-signed servers); a warning says so',
  },
  {
    name: 'disable-shuffle',
    type: 'boolean',
    help: 'Take the dataset in file order instead of shuffled by --seed (sharegpt, jsonl; prefix_repetition: grouped by prefix)',
  },
  {
    name: 'no-oversample',
    type: 'boolean',
    help: 'With fewer usable entries than --num-prompts, send fewer instead of adding duplicates',
  },
  {
    name: 'append-result',
    type: 'boolean',
    help: 'Append the result JSON to the result file (one JSON value per line) instead of replacing it',
  },
  {
    name: 'plot-timeline',
    type: 'boolean',
    help: "Write the run's HTML report, with its per-request timeline, beside the result file as <result>.timeline.html (vLLM)",
  },
  {
    name: 'timeline-itl-thresholds',
    type: 'string',
    valueName: 'MS,MS',
    help: 'The timeline colours inter-token gaps green below the first, orange up to the second, red above (default 25,50; vLLM)',
  },
  {
    name: 'chat-template-kwargs',
    type: 'string',
    valueName: 'JSON',
    help: 'vLLM renders client-side chat templates with these (custom/speed_bench); tokenmeter renders none and says so (send it with --extra-body \'{"chat_template_kwargs": ...}\')',
  },
] as const satisfies readonly OptionSpec[];

/** Flags accepted for vLLM's command lines that change nothing here, each with the line that says so. */
export const ACCEPTED_ONLY: Readonly<Record<string, string>> = {
  'tokenizer-mode':
    'vLLM picks a tokenizer implementation (hf, mistral, ...); tokenmeter reads tokenizer.json only',
  'use-beam-search': 'vLLM parses it and sends nothing for it either',
  profile:
    "vLLM would call the server's /start_profile and /stop_profile around the run (its torch profiler); not done",
  'plot-dataset-stats': "vLLM would plot the dataset's token lengths; not written (see --html)",
  'skip-tokenizer-init':
    "vLLM would then leave out the token counts and the TTFT/TPOT/ITL sections; tokenmeter's built-in tokenizer needs no init, so they stay",
  'no-stream': 'applies to Hugging Face datasets, which tokenmeter does not load',
  'skip-chat-template':
    'applies to datasets that render a chat template client-side; tokenmeter renders none',
  'enable-multimodal-chat': 'applies to multimodal datasets, which tokenmeter does not have',
  'custom-ensure-client-side-data': 'applies to custom_image, which tokenmeter does not have',
  'random-batch-size':
    'vLLM batches that many random prompts into one embeddings request; tokenmeter benchmarks generation, one prompt a request',
  'no-reranker': 'reranker benchmarks only; tokenmeter benchmarks generation',
};

/** Dataset-specific flags of vLLM's datasets tokenmeter does not have: [flag, type, dataset]. */
const OTHER_DATASET_FLAGS: ReadonlyArray<readonly [string, 'string' | 'number' | 'integer', string]> = [
  ['spec-bench-output-len', 'integer', 'spec_bench'],
  ['spec-bench-category', 'string', 'spec_bench'],
  ['sonnet-input-len', 'integer', 'sonnet'],
  ['sonnet-output-len', 'integer', 'sonnet'],
  ['sonnet-prefix-len', 'integer', 'sonnet'],
  ['blazedit-min-distance', 'number', 'hf (blazedit)'],
  ['blazedit-max-distance', 'number', 'hf (blazedit)'],
  ['asr-max-audio-len-sec', 'number', 'hf (ASR)'],
  ['asr-min-audio-len-sec', 'number', 'hf (ASR)'],
  ['random-mm-base-items-per-request', 'integer', 'random-mm'],
  ['random-mm-num-mm-items-range-ratio', 'number', 'random-mm'],
  ['random-mm-limit-mm-per-prompt', 'string', 'random-mm'],
  ['random-mm-bucket-config', 'string', 'random-mm'],
  ['hf-subset', 'string', 'hf'],
  ['hf-split', 'string', 'hf'],
  ['hf-name', 'string', 'hf'],
  ['hf-output-len', 'integer', 'hf'],
  ['bfcl-categories', 'string', 'hf (BFCL)'],
  ['speed-bench-dataset-subset', 'string', 'speed_bench'],
  ['speed-bench-output-len', 'integer', 'speed_bench'],
  ['speed-bench-category', 'string', 'speed_bench'],
];

const ACCEPTED_ONLY_TYPES: Readonly<Record<string, 'boolean' | 'string' | 'integer'>> = {
  'tokenizer-mode': 'string',
  'random-batch-size': 'integer',
};

/** Every accepted-only flag, with its note: the table above and the other datasets' flags. */
export const ACCEPTED_ONLY_NOTES: Readonly<Record<string, string>> = {
  ...ACCEPTED_ONLY,
  ...Object.fromEntries(
    OTHER_DATASET_FLAGS.map(([flag, , dataset]) => [
      flag,
      `applies to vLLM's ${dataset} dataset, which tokenmeter does not have`,
    ]),
  ),
};

type AcceptedOnlySpec = OptionSpec & { readonly acceptedOnly: true };

export const VLLM_ACCEPTED_ONLY_OPTIONS: readonly AcceptedOnlySpec[] = [
  ...Object.keys(ACCEPTED_ONLY).map(
    (name): AcceptedOnlySpec => ({
      name,
      acceptedOnly: true,
      type: ACCEPTED_ONLY_TYPES[name] ?? 'boolean',
      help: `Accepted for vLLM command lines; changes nothing: ${ACCEPTED_ONLY[name]}`,
    }),
  ),
  ...OTHER_DATASET_FLAGS.map(
    ([name, type, dataset]): AcceptedOnlySpec => ({
      name,
      acceptedOnly: true,
      type,
      help: `Accepted for vLLM command lines; changes nothing: vLLM's ${dataset} dataset only`,
    }),
  ),
];

/** The one line for each accepted-only flag the command line gave. */
export function acceptedOnlyNotes(given: ReadonlySet<string>): string[] {
  return Object.entries(ACCEPTED_ONLY_NOTES)
    .filter(([flag]) => given.has(flag))
    .map(([flag, note]) => `--${flag} is accepted and changes nothing: ${note}`);
}
