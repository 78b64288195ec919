// The "how was this run made" table at the top of a report: vLLM's run keys, then any --metadata pairs
// (saved by vLLM as top-level keys, so they are whatever scalar keys are not one of the known ones), and the
// key figures shared with `compare`, so both read the same.

import type { JsonValueObject } from '../../../src/shared/json-object.js';
import { compareRowSpecs } from '../../compare/compare-rows.js';
import { formatValue } from '../../compare/format-comparison.js';

const SETTINGS: ReadonlyArray<readonly [string, string]> = [
  ['label', 'Label'],
  ['date', 'Date'],
  ['backend', 'Backend'],
  ['model_id', 'Model'],
  ['tokenizer_id', 'Tokenizer'],
  ['num_prompts', 'Prompts'],
  ['request_rate', 'Request rate (req/s)'],
  ['burstiness', 'Burstiness'],
  ['max_concurrency', 'Max concurrency'],
];

/** vLLM's keys of some runs only: shown as settings when the run has them. */
const SETTINGS_WHEN_PRESENT: ReadonlyArray<readonly [string, string]> = [
  ['ramp_up_strategy', 'Ramp-up'],
  ['ramp_up_start_rps', 'Ramp-up start (req/s)'],
  ['ramp_up_end_rps', 'Ramp-up end (req/s)'],
];

/** vLLM's result keys that are neither settings nor --metadata: a key of vLLM's is never shown as the user's. */
const KNOWN = new Set([
  ...SETTINGS.map(([key]) => key),
  ...SETTINGS_WHEN_PRESENT.map(([key]) => key),
  'rtfx',
  'probe_completed',
  'probe_failed',
  'endpoint_type',
  'duration',
  'completed',
  'failed',
  'total_input_tokens',
  'total_output_tokens',
  'request_throughput',
  'request_goodput',
  'output_throughput',
  'total_token_throughput',
  'max_output_tokens_per_s',
  'max_concurrent_requests',
  'tokenmeter',
]);
const STAT_KEY = /^(mean|median|std|p\d+(\.\d+)?)_[a-z0-9]+_ms$/;
/** vLLM's families of keys: speculative decoding's, and its GPU energy keys (gpu_energy_j, energy_gpu_ids...). */
const VLLM_KEY_FAMILY = /^(spec_decode_|gpu_|energy_)/;

type Cell = string | number | boolean | null;

function scalar(value: JsonValueObject[string] | undefined): Cell | undefined {
  if (value === undefined) return undefined;
  return value === null || typeof value !== 'object' ? value : undefined;
}

export function settingsRows(json: JsonValueObject): Array<[string, Cell]> {
  const rows: Array<[string, Cell]> = SETTINGS.map(([key, name]) => [name, scalar(json[key]) ?? null]);
  for (const [key, name] of SETTINGS_WHEN_PRESENT) {
    const cell = scalar(json[key]);
    if (cell !== undefined) rows.push([name, cell]);
  }
  for (const [key, value] of Object.entries(json)) {
    const cell = scalar(value);
    if (cell === undefined || KNOWN.has(key) || STAT_KEY.test(key) || VLLM_KEY_FAMILY.test(key)) continue;
    rows.push([`metadata: ${key}`, cell]);
  }
  return rows;
}

/** Key figures with units, as `compare` lists them, formatted the same way. */
export function figureRows(json: JsonValueObject): Array<[string, string]> {
  return compareRowSpecs([json]).map((row) => [
    row.unit === '' ? row.label : `${row.label} (${row.unit})`,
    formatValue(row.read(json), row.integer === true),
  ]);
}
