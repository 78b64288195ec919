// sweep-summary.json: the sweep's levels and knee in snake_case, the names vLLM's result files use, so that
// `tokenmeter report sweep-summary.json` (and anyone's script) reads the same figures the table printed.
import type { Knee } from './knee.js';
import type { SweepLevel } from './sweep-level.js';

export interface SweepSummaryContext {
  readonly date: string;
  readonly target: string;
  readonly modelId: string;
  readonly engine: string;
  readonly promptsPerLevel: number;
  readonly maxConcurrency: number | null;
  readonly goodput: unknown;
  readonly interrupted: boolean;
}

/** JSON has no Infinity: the saturation probe's "all at once" is written as vLLM writes it, "inf". */
const rate = (value: number): number | 'inf' => (Number.isFinite(value) ? value : 'inf');

function levelJson(level: SweepLevel) {
  return {
    offered_rate: rate(level.offeredRps),
    requests: level.requests,
    success_rate: level.successRate,
    sent_rate: rate(level.sentRps),
    achieved_rate: rate(level.achievedRps),
    ttft_p50_ms: level.ttftP50Ms,
    ttft_p99_ms: level.ttftP99Ms,
    mean_tpot_ms: level.tpotMeanMs,
    itl_p99_ms: level.itlP99Ms,
    output_throughput: level.outputTokPerS,
    slo_attainment: level.sloAttainment,
    result_file: level.resultFile,
  };
}

export function sweepSummaryJson(context: SweepSummaryContext, levels: readonly SweepLevel[], knee: Knee) {
  const lastGood = knee.lastGood?.offeredRps ?? null;
  const firstBad = knee.firstBad?.offeredRps ?? null;
  return {
    date: context.date,
    base_url: context.target,
    model_id: context.modelId,
    engine: context.engine,
    num_prompts_per_level: context.promptsPerLevel,
    max_concurrency: context.maxConcurrency,
    goodput: context.goodput,
    levels: levels.map(levelJson),
    knee: {
      sentence: knee.sentence,
      // The rate the report marks: the last level that kept up (the capacity to plan for), else the first
      // level that did not.
      offered_rate: lastGood ?? firstBad,
      last_good_rps: lastGood,
      first_bad_rps: firstBad,
    },
    interrupted: context.interrupted,
  };
}
