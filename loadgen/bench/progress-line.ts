// The progress display's text, a pure function of the run's state: a redrawn bar for a terminal, a plain line
// for logs. Both carry the same figures: done, failed, in flight, the ETA, and the last seconds' TTFT p50/p99,
// output tokens per second and success rate.
import type { WindowSnapshot } from './rolling-window.js';

const BAR_WIDTH = 30;

export interface ProgressState {
  readonly total: number;
  readonly done: number;
  readonly failed: number;
  readonly inFlight: number;
  readonly elapsedMs: number;
  /** Length of the rolling window the snapshot was taken over, for its label. */
  readonly windowMs: number;
  readonly window: WindowSnapshot;
  /** When arrivals are spread over time (open loop, finite --request-rate): the last request's intended send time
   *  from the run's start. Undefined otherwise. */
  readonly scheduleEndMs?: number;
  /** The most requests in flight at once (--max-concurrency, the closed loop's users); undefined when uncapped. */
  readonly concurrencyCap?: number;
  /** How long a request takes (the median of the latest finished ones); null before any finished. */
  readonly requestMs: number | null;
}

/**
 * Time left. Two things bound it, and the later one wins. A schedule says when the last request goes out, whatever
 * the server does, so the end is no sooner than that instant plus the time one request takes (the tail);
 * a completion rate would swing with every burst of arrivals. A concurrency cap lets at most `cap` requests finish
 * per request time (Little's law: completions per second = cap / request time), so the remaining requests need at
 * least remaining x request time / cap. Under `--request-rate 1 --max-concurrency 32` (the article's command) the
 * schedule usually wins, at rate inf or on the closed loop the cap; when the cap hid the schedule, the last seconds'
 * completion rate said 14:52 at 10 s into a run that took 508 s. That rate stands in only when neither applies
 * (every request at once, no cap). Null before there is anything to go on.
 */
export function etaMs(state: ProgressState): number | null {
  const remaining = Math.max(0, state.total - state.done);
  if (remaining === 0) return 0;
  // The last request goes out at the schedule's end and takes about a request's time: past the end, what is in
  // flight has already run part of it.
  const scheduled =
    state.scheduleEndMs === undefined
      ? undefined
      : Math.max(0, state.scheduleEndMs + (state.requestMs ?? 0) - state.elapsedMs);
  const capped =
    state.concurrencyCap === undefined || state.requestMs === null
      ? undefined
      : (remaining * state.requestMs) / state.concurrencyCap;
  if (scheduled !== undefined || capped !== undefined) return Math.max(scheduled ?? 0, capped ?? 0);
  if (state.window.requestsPerS <= 0) return null;
  return (remaining / state.window.requestsPerS) * 1000;
}

/** One terminal line (redrawn in place), cut to the terminal's width so it never wraps. */
export function ttyLine(state: ProgressState, columns?: number): string {
  const filled =
    state.total === 0 ? BAR_WIDTH : Math.min(BAR_WIDTH, Math.round((state.done / state.total) * BAR_WIDTH));
  const bar = `[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}]`;
  const line =
    `${bar} ${state.done}/${state.total} done, ${state.failed} failed, ${state.inFlight} in flight, ` +
    `ETA ${clock(etaMs(state))} | ${windowFigures(state)}`;
  return columns !== undefined && columns > 1 && line.length >= columns ? line.slice(0, columns - 1) : line;
}

/** One line for a log: no control characters, starts with `progress: `. */
export function plainLine(state: ProgressState): string {
  return (
    `progress: ${state.done}/${state.total} done (${state.failed} failed), ${state.inFlight} in flight, ` +
    `${(state.elapsedMs / 1000).toFixed(1)} s, ETA ${clock(etaMs(state))}; ${windowFigures(state)}`
  );
}

function windowFigures(state: ProgressState): string {
  const w = state.window;
  const success = w.done === 0 ? '-' : `${(((w.done - w.failed) / w.done) * 100).toFixed(1)}%`;
  return (
    `last ${Math.round(state.windowMs / 1000)} s: TTFT p50 ${duration(w.ttftP50Ms)} p99 ${duration(w.ttftP99Ms)}, ` +
    `${Math.round(w.outputTokensPerS)} output tok/s, ${success} ok`
  );
}

function duration(ms: number | null): string {
  if (ms === null) return '-';
  if (ms < 1000) return `${ms < 10 ? ms.toFixed(1) : Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(2)} s`;
}

/** m:ss, or h:mm:ss from an hour; `-` when unknown. */
function clock(ms: number | null): string {
  if (ms === null) return '-';
  const total = Math.ceil(ms / 1000);
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = String(total % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${seconds}` : `${minutes}:${seconds}`;
}
