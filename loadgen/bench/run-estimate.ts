// The estimate of one bench run from its settings: the same tokenizer, sampled dataset and request count the run
// itself would use (runBench's requestCount), so what is predicted is what would be sent. Loads nothing it is
// given, and sends nothing: --estimate exits after it, without even asking the server for its model.

import { calibrateOnSmoke, estimateRun, type RunEstimate, type SmokeCalibration } from '../cost/estimate.js';
import type { RequestRecord } from '../record.js';
import { loadTokenizer } from '../tokenizer/hf-tokenizer.js';
import type { Tokenizer } from '../tokenizer/tokenizer.js';
import type { LoadedDataset } from './load-dataset.js';
import { loadDataset } from './load-dataset.js';
import { requestCount } from './run-bench.js';
import type { BenchSettings } from './settings.js';

export interface EstimateInputs {
  readonly tokenizer?: Tokenizer;
  readonly dataset?: LoadedDataset;
  readonly calibration?: SmokeCalibration;
}

export async function estimateBenchRun(
  settings: BenchSettings,
  inputs: EstimateInputs = {},
): Promise<{ estimate: RunEstimate; tokenizer: Tokenizer; dataset: LoadedDataset }> {
  const tokenizer = inputs.tokenizer ?? (await loadTokenizer(settings.tokenizer));
  const dataset = inputs.dataset ?? (await loadDataset(settings.dataset, tokenizer));
  const estimate = estimateRun(
    dataset.requests,
    requestCount(settings, dataset),
    settings.cost.price,
    inputs.calibration,
  );
  return { estimate, tokenizer, dataset };
}

/** After --smoke: the run the same command without --smoke would make, its output scaled by what the smoke
 *  answers returned. Undefined when no smoke answer succeeded. */
export async function calibratedFullRunEstimate(
  settings: BenchSettings,
  smoke: {
    readonly tokenizer: Tokenizer;
    readonly dataset: LoadedDataset;
    readonly records: readonly RequestRecord[];
  },
): Promise<RunEstimate | undefined> {
  const calibration = calibrateOnSmoke(smoke.records, smoke.dataset.requests);
  if (calibration === undefined) return undefined;
  const full = { ...settings, dataset: { ...settings.dataset, numPrompts: settings.cost.fullRunPrompts } };
  const { estimate } = await estimateBenchRun(full, { tokenizer: smoke.tokenizer, calibration });
  return estimate;
}
