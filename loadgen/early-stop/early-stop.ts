// When a run's answer is known before its end: the server is saturated, or too many requests fail. Both rules
// read a sliding window (--stop-window) and are checked every interval, so an overloaded run stops at most one
// window and one interval after the overload shows.
// - Saturation, from the client: within the window, fewer requests finished than FOLLOW_RATIO (the sweep's
//   keep-up rule) of those due. The window opens at the first completion, so the warm-up (requests due before
//   any could finish) is not read as falling behind. The closed loop has no schedule: only the next rule.
// - Saturation, from the server: its waiting queue never fell through the window and grew by at least
//   MIN_WAITING_GROWTH requests (one sample an interval, at least MIN_WAITING_SAMPLES of them).
// - Errors: of the requests that finished within the window (at least MIN_FINISHED), more than --max-error-rate
//   failed. Requests the run cancelled itself (its own stop's client_abort, --request-cancellation-rate's
//   cancelled: loadgen/record.ts) are not failures.

import { cancelledByRun, type RequestRecord } from '../record.js';
import type { ServerSample } from '../server-metrics/server-scraper.js';
import type { EarlyStopReason, EarlyStopSettings } from './early-stop-settings.js';

/**
 * A run keeps up while it completes at least this share of what it was offered: the sweep judges a level by it
 * (loadgen/sweep/sweep-level.ts), and the saturation rule here reads it over the window.
 */
export const FOLLOW_RATIO = 0.9;

const MIN_DUE = 10;
const MIN_FINISHED = 10;
const MIN_WAITING_GROWTH = 5;
const MIN_WAITING_SAMPLES = 3;

/** Why a run stopped early, with the numbers, for the report and the result JSON. */
export interface EarlyStop {
  readonly reason: EarlyStopReason;
  /** Seconds from the run's t = 0 when the rule fired. */
  readonly atS: number;
  readonly windowS: number;
  /** One sentence with the numbers. */
  readonly message: string;
  readonly figures: Readonly<Record<string, number>>;
}

const pct = (share: number): string => `${(share * 100).toFixed(0)}%`;

export class EarlyStopWatch {
  readonly #settings: EarlyStopSettings;
  /** Intended offsets (ms from t = 0), ascending; empty for the closed loop. */
  readonly #dueMs: readonly number[];
  #t0Ms: number;
  #firstFinishMs: number | undefined;
  /** Each finished request: when (ms from t = 0) and whether it failed. */
  readonly #finished: Array<{ atMs: number; failed: boolean }> = [];
  readonly #waiting: Array<{ atMs: number; waiting: number }> = [];

  /** `t0Ms`: performance.now() of the run's t = 0 as far as it is known before the engine says. */
  constructor(settings: EarlyStopSettings, dueMs: readonly number[], t0Ms: number) {
    this.#settings = settings;
    this.#dueMs = [...dueMs].sort((a, b) => a - b);
    this.#t0Ms = t0Ms;
  }

  onRecord(record: RequestRecord, runStartMs: number): void {
    this.#t0Ms = runStartMs;
    const atMs = performance.now() - runStartMs;
    this.#firstFinishMs ??= atMs;
    const failed = record.outcome !== 'ok' && !cancelledByRun(record);
    this.#finished.push({ atMs, failed });
  }

  onServerSample(sample: ServerSample): void {
    const waiting = sample.reading.gauges.waiting;
    if (waiting !== null) this.#waiting.push({ atMs: sample.atMs - this.#t0Ms, waiting });
  }

  /** The first rule that holds now, if any. */
  check(nowMs: number = performance.now()): EarlyStop | undefined {
    const at = nowMs - this.#t0Ms;
    const from = at - this.#settings.windowMs;
    const windowS = this.#settings.windowMs / 1000;
    const stop = (reason: EarlyStopReason, message: string, figures: Record<string, number>): EarlyStop => ({
      reason,
      atS: at / 1000,
      windowS,
      message,
      figures,
    });
    const finished = this.#finished.filter((f) => f.atMs > from && f.atMs <= at);
    if (this.#settings.maxErrorRate !== undefined && finished.length >= MIN_FINISHED) {
      const failed = finished.filter((f) => f.failed).length;
      const rate = failed / finished.length;
      if (rate > this.#settings.maxErrorRate) {
        return stop(
          'error_rate',
          `${pct(rate)} of the requests that finished in the last ${windowS} s failed (${failed} of ${finished.length}), over --max-error-rate ${this.#settings.maxErrorRate}`,
          {
            failed,
            finished: finished.length,
            error_rate: rate,
            max_error_rate: this.#settings.maxErrorRate,
          },
        );
      }
    }
    if (!this.#settings.onSaturation) return undefined;
    if (this.#firstFinishMs !== undefined && from >= this.#firstFinishMs && this.#dueMs.length > 0) {
      const due = this.#dueMs.filter((d) => d > from && d <= at).length;
      if (due >= MIN_DUE && finished.length < FOLLOW_RATIO * due) {
        const offered = due / windowS;
        const achieved = finished.length / windowS;
        return stop(
          'saturation',
          `in the last ${windowS} s ${due} requests were due and ${finished.length} finished: achieved ${achieved.toFixed(2)} req/s of ${offered.toFixed(2)} offered (${pct(achieved / offered)}, under ${pct(FOLLOW_RATIO)})`,
          { due, finished: finished.length, offered_rps: offered, achieved_rps: achieved },
        );
      }
    }
    return this.#waitingGrowth(from, at, stop);
  }

  #waitingGrowth(
    from: number,
    at: number,
    stop: (reason: EarlyStopReason, message: string, figures: Record<string, number>) => EarlyStop,
  ): EarlyStop | undefined {
    const inWindow = this.#waiting.filter((w) => w.atMs >= from && w.atMs <= at);
    const first = inWindow[0];
    const last = inWindow.at(-1);
    if (first === undefined || last === undefined || inWindow.length < MIN_WAITING_SAMPLES) return undefined;
    // The samples must cover most of the window, or a burst's first seconds would pass for a trend.
    if (last.atMs - first.atMs < 0.8 * this.#settings.windowMs) return undefined;
    const neverFell = inWindow.every((w, i) => i === 0 || w.waiting >= (inWindow[i - 1]?.waiting ?? 0));
    const growth = last.waiting - first.waiting;
    if (!neverFell || growth < MIN_WAITING_GROWTH) return undefined;
    return stop(
      'saturation',
      `the server's waiting queue grew from ${first.waiting} to ${last.waiting} requests over the last ${(this.#settings.windowMs / 1000).toFixed(0)} s and never fell (${inWindow.length} samples of its /metrics)`,
      { waiting_from: first.waiting, waiting_to: last.waiting, samples: inWindow.length },
    );
  }
}
