// The arrival schedule, computed before the run starts (open loop): request i is due at offsetsMs[i] after the
// start whatever happened to earlier requests, so a slow server cannot slow the load down and hide its own
// latency (coordinated omission).
//
// Gaps follow vLLM: gamma(shape = burstiness, scale = 1 / (rate x burstiness)), mean 1/rate and coefficient of
// variation 1/sqrt(burstiness): burstiness 1 is a Poisson process, below 1 burstier, above 1 more even; an
// infinite burstiness gives constant gaps. Rate `inf` sends everything at t = 0. As vLLM does, the first request
// also waits one gap, and with a fixed rate the offsets are rescaled so the last lands exactly at N / rate
// (a sum of N random gaps drifts a percent or two from that, which would make throughput depend on the seed).
// With a ramp-up, request i gets the rate start + (end - start) x i/(N-1) (linear) or
// start x (end/start)^(i/(N-1)) (exponential), and no rescaling is done.
//
// The gaps are vLLM's own draws: numpy's legacy state seeded with --seed (`np.random.seed(seed)` in vLLM's
// client), one `np.random.gamma` per request, summed and rescaled in seconds in the same order of operations, so
// the same --seed gives the same intended send times as `vllm bench serve` (test/loadgen/vllm-schedule.test.ts
// holds them to within a microsecond of its own). A dataset that draws from that state first (prefix_repetition)
// hands it on, and the gaps continue from there, as in vLLM. One extension: vLLM refuses a ramp that starts at 0 rps,
// here that first request goes at once.

import { UserFacingError } from '../src/shared/user-facing-error.js';
import { correctlyRoundedPow as pow } from './vllm-random/correctly-rounded-math.js';
import { NumpyRandomState } from './vllm-random/numpy-random-state.js';

export type RampUpStrategy = 'linear' | 'exponential';

export interface RampUp {
  strategy: RampUpStrategy;
  startRps: number;
  endRps: number;
}

export interface ArrivalOptions {
  /** Requests per second; Infinity sends all at once (vLLM's default `inf`). Ignored with a ramp-up. */
  requestRate: number;
  /** Gamma shape (vLLM default 1 = Poisson). */
  burstiness: number;
  seed: number;
  rampUp?: RampUp;
  /** numpy's state where the dataset left it (SampledDataset.numpyRandom); drawn from a copy, so a schedule can
   *  be computed again. Absent: seeded with `seed`. */
  numpyRandom?: NumpyRandomState;
}

export interface ArrivalSchedule {
  /** Intended send time of each request, in ms after the run starts; non-decreasing. */
  offsetsMs: number[];
  /** Target rate in force for each request (requests per second). */
  ratesRps: number[];
}

function validate(options: ArrivalOptions): void {
  if (!(options.burstiness > 0))
    throw new UserFacingError(`--burstiness must be above 0, got ${options.burstiness}`);
  const ramp = options.rampUp;
  if (ramp === undefined) {
    if (!(options.requestRate > 0)) {
      throw new UserFacingError(`--request-rate must be above 0 (or inf), got ${options.requestRate}`);
    }
    return;
  }
  if (
    !Number.isFinite(ramp.startRps) ||
    !Number.isFinite(ramp.endRps) ||
    ramp.startRps < 0 ||
    ramp.endRps <= 0
  ) {
    throw new UserFacingError('--ramp-up-start-rps must be >= 0 and --ramp-up-end-rps above 0, both finite');
  }
  if (ramp.strategy === 'exponential' && ramp.startRps === 0) {
    throw new UserFacingError('--ramp-up-strategy exponential needs --ramp-up-start-rps above 0');
  }
}

/** Target rate for request `index` of `count` (the ramp-up rule, or the fixed rate). */
export function rateAt(index: number, count: number, options: ArrivalOptions): number {
  const ramp = options.rampUp;
  if (ramp === undefined) return options.requestRate;
  const progress = index / Math.max(count - 1, 1);
  if (ramp.strategy === 'linear') return ramp.startRps + (ramp.endRps - ramp.startRps) * progress;
  // Python's `**` is the C library's pow, which V8's `**` is not: rounded correctly, it gives vLLM's rates.
  return ramp.startRps * pow(ramp.endRps / ramp.startRps, progress);
}

export function arrivalSchedule(count: number, options: ArrivalOptions): ArrivalSchedule {
  validate(options);
  const random = options.numpyRandom?.clone() ?? new NumpyRandomState(options.seed);
  const delaysS: number[] = [];
  const ratesRps: number[] = [];
  let elapsedS = 0;
  for (let i = 0; i < count; i++) {
    const rate = rateAt(i, count, options);
    ratesRps.push(rate);
    // A ramp may start at 0 rps: that first gap would be infinite, so the request goes at once instead.
    if (rate === Number.POSITIVE_INFINITY || rate === 0) elapsedS += 0;
    else if (options.burstiness === Number.POSITIVE_INFINITY) elapsedS += 1 / rate;
    else elapsedS += random.gamma(options.burstiness, 1 / (rate * options.burstiness));
    delaysS.push(elapsedS);
  }
  const last = delaysS[count - 1] ?? 0;
  const factor =
    options.rampUp === undefined && Number.isFinite(options.requestRate) && last > 0
      ? count / options.requestRate / last
      : 1;
  return { offsetsMs: delaysS.map((delay) => delay * factor * 1000), ratesRps };
}
