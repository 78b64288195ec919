// The settings the flags of vllm-serve-options.ts make (vLLM 009e6d4a's `vllm bench serve` behaviour), and the
// lines the run's header says about them: sampling parameters into the body only when given (no temperature is
// forced, as vLLM since PR #32723), --input-len/--output-len mapped onto the dataset flags, LoRA names, the
// warm-ups and the ready check, --insecure, and the accepted-only flags' one line each.

import type { LoraAssignment } from '../../loadgen/bench/prepare-requests.js';
import type { TimelineSettings } from '../../loadgen/bench/settings.js';
import { DEFAULT_ITL_THRESHOLDS_MS } from '../../loadgen/report/html/timeline-chart.js';
import type { Backend } from '../protocols/backends.js';
import { UsageError } from '../shared/user-facing-error.js';
import type { BenchValues } from './bench-options.js';
import {
  acceptedOnlyNotes,
  SAMPLING_OPTIONS,
  VLLM_ONLY_DATASET_NOTES,
  VLLM_ONLY_DATASETS,
} from './vllm-serve-options.js';

/** vLLM's OPENAI_COMPATIBLE_BACKENDS among ours: the ones its random dataset forces ignore_eos on. */
const OPENAI_COMPATIBLE: ReadonlySet<Backend> = new Set(['openai', 'vllm', 'openai-chat']);

export interface VllmServeParts {
  /** Body fields from the sampling flags (and --logprobs), merged under --extra-body as vLLM merges them. */
  readonly sampling: Record<string, number>;
  readonly temperature?: number;
  /** --input-len / --output-len onto the dataset flags they stand for (undefined: not given). */
  readonly inputLen?: number;
  readonly outputLen?: number;
  /** vLLM forces ignore_eos for its random dataset on OpenAI backends. */
  readonly forceIgnoreEos: boolean;
  readonly warmups: number;
  readonly readyCheckTimeoutS: number;
  /** --probe-request-rate: one-token probes per second beside the run; 0 = none (loadgen/bench/probe-requests.ts). */
  readonly probeRequestRate: number;
  readonly lora?: { modules: string[]; assignment: LoraAssignment };
  readonly insecure: boolean;
  readonly disableShuffle: boolean;
  readonly noOversample: boolean;
  readonly appendResult: boolean;
  /** --plot-timeline and --timeline-itl-thresholds; undefined when neither was given. */
  readonly timeline?: TimelineSettings;
  /** Lines for the run's header. */
  readonly notes: string[];
}

/** vLLM's "25,50": two numbers of milliseconds (a space between them is read too). */
function timelineOf(o: BenchValues): { timeline?: TimelineSettings } {
  const given = o['timeline-itl-thresholds'];
  if (!o['plot-timeline'] && given === undefined) return {};
  let itlThresholdsMs = DEFAULT_ITL_THRESHOLDS_MS;
  if (given !== undefined) {
    const parts = given
      .split(/[\s,]+/)
      .filter((p) => p !== '')
      .map(Number);
    const [low, high] = parts as [number, number];
    if (parts.length !== 2 || !parts.every((n) => Number.isFinite(n) && n >= 0) || low > high) {
      throw new UsageError(
        `--timeline-itl-thresholds takes two numbers of milliseconds, the lower first, as 25,50 (got '${given}')`,
      );
    }
    itlThresholdsMs = [low, high];
  }
  return { timeline: { plot: o['plot-timeline'], itlThresholdsMs } };
}

function checkJsonObject(flag: string, text: string | undefined): void {
  if (text === undefined) return;
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return;
  } catch {
    // said below
  }
  throw new UsageError(`--${flag} must be a JSON object, e.g. '{"enable_thinking": false}' (got ${text})`);
}

export function vllmServeParts(
  o: BenchValues,
  run: {
    backend: Backend;
    /** Whether --backend was given; without it, the backend --endpoint fits, else openai-chat (target-url.ts). */
    backendNamed: boolean;
    /** The API path requests go to, and whether --endpoint was given. */
    endpoint: string;
    endpointNamed: boolean;
    datasetName: string;
    datasetNamed: boolean;
    completions: boolean;
  },
): VllmServeParts {
  if ((VLLM_ONLY_DATASETS as readonly string[]).includes(run.datasetName)) {
    const note = VLLM_ONLY_DATASET_NOTES[run.datasetName as keyof typeof VLLM_ONLY_DATASET_NOTES];
    throw new UsageError(
      `--dataset-name ${run.datasetName} is ${note ?? "one of vLLM's datasets that tokenmeter does not have"}; use sharegpt, random, prefix_repetition, jsonl (custom), records, mooncake, burstgpt or timed_trace`,
    );
  }
  checkJsonObject('chat-template-kwargs', o['chat-template-kwargs']);
  const notes: string[] = [];
  const sampling: Record<string, number> = {};
  for (const { name } of SAMPLING_OPTIONS) {
    const value = o[name];
    if (value !== undefined) sampling[name.replace(/-/g, '_')] = value;
  }
  const logprobs = o['logprobs'];
  if (logprobs !== undefined) {
    if (run.completions) sampling['logprobs'] = logprobs;
    else notes.push('--logprobs is sent with completions backends only, as vLLM does; this run sends none');
  }
  const temperature = o['temperature'];
  if (temperature === undefined)
    notes.push(
      'no --temperature: none is sent, so the server chooses (vLLM no longer sends temperature 0 either); --temperature 0 for greedy',
    );
  if (!run.backendNamed)
    notes.push(
      run.endpointNamed
        ? `no --backend: ${run.backend} is used, the one whose bodies fit --endpoint ${run.endpoint} (vLLM's default is --backend openai, completions bodies)`
        : `no --backend: ${run.backend} is used, sending to ${run.endpoint} (vLLM's default is --backend openai: completions, /v1/completions)`,
    );
  if (!run.datasetNamed)
    notes.push(
      "no --dataset-name: the bundled ShareGPT-format sample is sent (vLLM's default is --dataset-name random: 1024 input, 128 output tokens, ignore_eos)",
    );
  // vLLM forces it for timed_trace too (on the completions backends it allows); timed-trace-options.ts says so in
  // its own note, so this one is the random dataset's alone.
  const randomIgnoresEos = run.datasetName === 'random' && OPENAI_COMPATIBLE.has(run.backend);
  const forceIgnoreEos = randomIgnoresEos || run.datasetName === 'timed_trace';
  if (randomIgnoresEos && !o['ignore-eos'])
    notes.push('random dataset: ignore_eos is sent so every answer runs to its length, as vLLM does');
  const modules = o['lora-modules'];
  const assignment = o['lora-assignment'];
  if (modules.length > 0)
    notes.push(`LoRA: each request's model is one of ${modules.join(', ')} (${assignment})`);
  const insecure = o['insecure'];
  if (insecure)
    notes.push(
      "warning: --insecure: the server's TLS certificate is not verified, so anyone on the path can read the traffic and the key",
    );
  if (o['chat-template-kwargs'] !== undefined)
    notes.push(
      '--chat-template-kwargs is accepted: vLLM applies it when it renders a chat template client-side (custom, speed_bench), which tokenmeter never does; to send it to the server use --extra-body \'{"chat_template_kwargs": ...}\'',
    );
  // The accepted-only flags are in no type (nothing reads their values): any value but off or empty is one given.
  const given = (value: unknown): boolean =>
    value !== undefined && value !== false && !(Array.isArray(value) && value.length === 0);
  const accepted = new Set(Object.entries(o).flatMap(([name, value]) => (given(value) ? [name] : [])));
  notes.push(...acceptedOnlyNotes(accepted));
  const inputLen = o['input-len'];
  const outputLen = o['output-len'];
  return {
    sampling,
    ...(temperature === undefined ? {} : { temperature }),
    ...(inputLen === undefined ? {} : { inputLen }),
    ...(outputLen === undefined ? {} : { outputLen }),
    forceIgnoreEos,
    warmups: o['num-warmups'],
    readyCheckTimeoutS: o['ready-check-timeout-sec'],
    probeRequestRate: o['probe-request-rate'],
    ...(modules.length > 0 ? { lora: { modules, assignment } } : {}),
    insecure,
    disableShuffle: o['disable-shuffle'],
    noOversample: o['no-oversample'],
    appendResult: o['append-result'],
    ...timelineOf(o),
    notes,
  };
}
