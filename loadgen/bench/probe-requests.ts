// --probe-request-rate R, as `vllm bench serve` at the pinned commit does it: beside the run, one probe at a time
// ("Hi", one output token, the run's model, backend and body options), each sent when the previous one has ended
// and 1/R s have passed, past --max-concurrency, from just before the first request until the last one has
// ended. Probes are not records: their end-to-end latencies are summarized apart (vLLM's "Probe Requests"
// section and probe_* keys), to show how the load stalls a small unrelated request. vLLM's own duration also
// waits for the probe loop's last pause; ours ends with the run's last request, and the pause is cut short.

import { setTimeout as sleep } from 'node:timers/promises';
import type { PreparedRequest } from '../engine/engine.js';
import { createOpenLoopEngine } from '../engine/open-loop-engine.js';
import { median, percentile } from '../metrics/numpy-stats.js';
import type { RequestRecord } from '../record.js';
import type { ProbeStats } from '../report/vllm-summary.js';
import type { UnrecordedRunOptions } from './warm-up.js';

/** vLLM's probe: its text, and the output tokens it asks for (its prompt_len and output_len). */
export const PROBE_PROMPT = 'Hi';
export const PROBE_OUTPUT_TOKENS = 1;

export class ProbeLoop {
  readonly #records: RequestRecord[] = [];
  readonly #stopped = new AbortController();
  readonly #done: Promise<void>;

  private constructor(
    private readonly options: UnrecordedRunOptions,
    private readonly request: PreparedRequest,
    private readonly intervalMs: number,
    private readonly idPrefix: string,
  ) {
    this.#done = this.#loop();
  }

  /** Starts sending probes at once; `request` is the probe's body (PROBE_PROMPT, PROBE_OUTPUT_TOKENS). */
  static start(
    options: UnrecordedRunOptions,
    request: PreparedRequest,
    ratePerS: number,
    idPrefix: string,
  ): ProbeLoop {
    return new ProbeLoop(options, request, 1000 / ratePerS, idPrefix);
  }

  async #loop(): Promise<void> {
    for (let n = 0; !this.#stopped.signal.aborted && !this.options.signal.aborted; n++) {
      await createOpenLoopEngine({ offsetsMs: [0] }).run({
        ...this.options,
        requests: [{ ...this.request, index: n, requestId: `${this.idPrefix}${n}` }],
        keepText: false,
        onRecord: (record) => void this.#records.push(record),
      });
      try {
        await sleep(this.intervalMs, undefined, { signal: this.#stopped.signal });
      } catch {
        // stopped during the pause: the loop ends
      }
    }
  }

  /** Stops sending; a probe in flight is waited for (a Ctrl-C of the run cancels it). Its records. */
  async stop(): Promise<readonly RequestRecord[]> {
    this.#stopped.abort();
    await this.#done;
    return this.#records;
  }
}

/** vLLM's probe figures; undefined when no probe succeeded (vLLM then prints and saves none). */
export function probeStats(records: readonly RequestRecord[]): ProbeStats | undefined {
  const latencies = records
    .filter((r) => r.outcome === 'ok' && r.lastTokenMs !== null)
    .map((r) => r.lastTokenMs as number);
  if (latencies.length === 0) return undefined;
  return {
    completed: latencies.length,
    failed: records.length - latencies.length,
    medianE2elMs: median(latencies),
    p99E2elMs: percentile(latencies, 99),
    maxE2elMs: Math.max(...latencies),
  };
}
