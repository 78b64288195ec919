// Live progress while the run goes: on a terminal, a line redrawn five times a second; on anything else (CI
// logs, pipes) a plain line at each tenth of the run and at least every 10 s, so logs stay readable and a long
// run still shows signs of life. What the lines say is progress-line.ts; the last seconds' figures come from a
// bounded RollingWindow. Writes to stderr: stdout carries only the report.

import { performance } from 'node:perf_hooks';
import { median } from '../metrics/numpy-stats.js';
import { cancelledAsPlanned, type RequestRecord } from '../record.js';
import { type ProgressState, plainLine, ttyLine } from './progress-line.js';
import { RollingWindow } from './rolling-window.js';

const REDRAW_MS = 200;
/** How many of the latest finished requests the in-flight tail is the median of. */
const TAIL_SAMPLES = 64;
const PLAIN_EVERY_MS = 10_000;
/** The live figures cover this much of the run: long enough for a p99 at a few requests a second. */
export const PROGRESS_WINDOW_MS = 10_000;

export interface ProgressStream {
  write(text: string): unknown;
  readonly isTTY?: boolean;
  /** The terminal's width, when it is one. */
  readonly columns?: number;
}

export interface ProgressOptions {
  /** The clock, in ms (tests pass their own). */
  readonly now?: () => number;
  /** With a fixed rate: the last request's intended send time (ProgressState.scheduleEndMs). */
  readonly scheduleEndMs?: number;
  /** The most requests in flight at once (ProgressState.concurrencyCap). */
  readonly concurrencyCap?: number;
}

export class ProgressDisplay {
  readonly #total: number;
  readonly #scheduleEndMs: number | undefined;
  readonly #concurrencyCap: number | undefined;
  /** The latest finished requests' durations (a ring of TAIL_SAMPLES). */
  readonly #durations: number[] = [];
  #nextDuration = 0;
  readonly #stream: ProgressStream;
  readonly #tty: boolean;
  readonly #enabled: boolean;
  readonly #now: () => number;
  readonly #startMs: number;
  readonly #window = new RollingWindow(PROGRESS_WINDOW_MS);
  #sent = 0;
  #done = 0;
  #failed = 0;
  #nextTenth = 1;
  #lastPlainMs: number;
  #timer: NodeJS.Timeout | undefined;

  constructor(total: number, stream: ProgressStream, enabled: boolean, options: ProgressOptions = {}) {
    const now = options.now ?? (() => performance.now());
    this.#total = total;
    this.#scheduleEndMs = options.scheduleEndMs;
    this.#concurrencyCap = options.concurrencyCap;
    this.#stream = stream;
    this.#enabled = enabled;
    this.#tty = enabled && stream.isTTY === true;
    this.#now = now;
    this.#startMs = now();
    this.#lastPlainMs = this.#startMs;
    if (!enabled) return;
    this.#timer = this.#tty
      ? setInterval(() => this.#draw(), REDRAW_MS)
      : setInterval(() => this.#heartbeat(), PLAIN_EVERY_MS / 2);
    this.#timer.unref();
  }

  onSent(): void {
    this.#sent++;
  }

  onRecord(record: RequestRecord): void {
    this.#done++;
    const ok = record.outcome === 'ok';
    // A planned cancellation (--request-cancellation-rate) is counted apart, never as failed.
    if (!ok && !cancelledAsPlanned(record)) this.#failed++;
    if (ok && record.lastTokenMs !== null) {
      this.#durations[this.#nextDuration] = record.lastTokenMs;
      this.#nextDuration = (this.#nextDuration + 1) % TAIL_SAMPLES;
    }
    this.#window.add(this.#now() - this.#startMs, {
      ok,
      ttftMs: record.ttftMs,
      outputTokens: record.outputTokens,
    });
    if (this.#tty || !this.#enabled || this.#done * 10 < this.#nextTenth * this.#total) return;
    while (this.#done * 10 >= this.#nextTenth * this.#total) this.#nextTenth++;
    this.#writePlain();
  }

  stop(): void {
    if (this.#timer === undefined) return;
    clearInterval(this.#timer);
    this.#timer = undefined;
    if (!this.#tty) return;
    this.#draw();
    this.#stream.write('\n');
  }

  #state(): ProgressState {
    const elapsedMs = this.#now() - this.#startMs;
    return {
      total: this.#total,
      done: this.#done,
      failed: this.#failed,
      inFlight: Math.max(0, this.#sent - this.#done),
      elapsedMs,
      windowMs: PROGRESS_WINDOW_MS,
      window: this.#window.snapshot(elapsedMs),
      ...(this.#scheduleEndMs === undefined ? {} : { scheduleEndMs: this.#scheduleEndMs }),
      ...(this.#concurrencyCap === undefined ? {} : { concurrencyCap: this.#concurrencyCap }),
      requestMs: this.#durations.length === 0 ? null : median(this.#durations),
    };
  }

  #heartbeat(): void {
    if (this.#now() - this.#lastPlainMs >= PLAIN_EVERY_MS) this.#writePlain();
  }

  #writePlain(): void {
    this.#lastPlainMs = this.#now();
    this.#stream.write(`${plainLine(this.#state())}\n`);
  }

  #draw(): void {
    this.#stream.write(`\r${ttyLine(this.#state(), this.#stream.columns)}\u001b[K`);
  }
}
