// Live progress while the run goes: a redrawn bar on a terminal, and on anything else (CI logs, pipes) a quiet
// line at each tenth of the run, so logs stay readable. Writes to stderr: stdout carries only the report.

import { performance } from 'node:perf_hooks';
import type { RequestRecord } from '../record.js';

const REDRAW_MS = 200;
const BAR_WIDTH = 30;

export interface ProgressStream {
  write(text: string): unknown;
  readonly isTTY?: boolean;
}

export class ProgressDisplay {
  readonly #total: number;
  readonly #stream: ProgressStream;
  readonly #tty: boolean;
  readonly #startMs = performance.now();
  #sent = 0;
  #done = 0;
  #failed = 0;
  #nextTenth = 1;
  #timer: NodeJS.Timeout | undefined;

  constructor(total: number, stream: ProgressStream, enabled: boolean) {
    this.#total = total;
    this.#stream = stream;
    this.#tty = enabled && stream.isTTY === true;
    if (this.#tty) {
      this.#timer = setInterval(() => this.#draw(), REDRAW_MS);
      this.#timer.unref();
    }
    if (!enabled) this.#nextTenth = Number.POSITIVE_INFINITY;
  }

  onSent(): void {
    this.#sent++;
  }

  onRecord(record: RequestRecord): void {
    this.#done++;
    if (record.outcome !== 'ok') this.#failed++;
    if (!this.#tty && this.#done * 10 >= this.#nextTenth * this.#total) {
      while (this.#done * 10 >= this.#nextTenth * this.#total) this.#nextTenth++;
      this.#stream.write(`progress: ${this.#line()}\n`);
    }
  }

  stop(): void {
    if (this.#timer === undefined) return;
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#draw();
    this.#stream.write('\n');
  }

  #line(): string {
    const seconds = ((performance.now() - this.#startMs) / 1000).toFixed(1);
    const inFlight = this.#sent - this.#done;
    return `${this.#done}/${this.#total} done (${this.#failed} failed), ${Math.max(0, inFlight)} in flight, ${seconds} s`;
  }

  #draw(): void {
    const filled = this.#total === 0 ? BAR_WIDTH : Math.round((this.#done / this.#total) * BAR_WIDTH);
    const bar = `${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}`;
    this.#stream.write(`\r[${bar}] ${this.#line()}\u001b[K`);
  }
}
