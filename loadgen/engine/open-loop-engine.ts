// The open-loop engine: requests leave on a schedule computed before the run (arrivals.ts), whatever happened
// to earlier ones, so a slow server cannot slow the load down and hide its own latency (coordinated omission).
// The only thing a send may wait for is a --max-concurrency slot, and that wait (from the intended time to the
// moment a slot became free) is recorded as client queue time. A request could be sent at the later of its
// intended time and that moment; schedule lag (actual send minus that moment) is recorded for every request, so
// a run where the load generator itself fell behind can be told apart from one where the server, or the cap, set
// the pace.
//
// A shard of a run split across processes or machines anchors t = 0 at the instant all shards share (startAtMs)
// instead of at the call, and waits for it here.
//
// Transport: enginePool (undici-send.ts), with as many connections as the concurrency can reach (unbounded
// without --max-concurrency), so no request ever queues inside the HTTP client where its wait would look like
// server latency.
//
// A run bounded by time (--duration) stops sending at its deadline: requests due at or after it are never launched,
// and one that waited for a --max-concurrency slot and got it only after the deadline is dropped unsent (no
// record: it never left). One due before it is sent even if the scheduler runs late, as any late send is (its lag
// is recorded). Requests already in flight finish and are recorded as usual. A budget stop (stopSending) ends
// sending the same way, at the moment a limit is reached.

import { performance } from 'node:perf_hooks';
import { newSpan } from '../../src/shared/trace-context.js';
import type { RequestRecord } from '../record.js';
import { AbortHub } from './abort-hub.js';
import { ConcurrencyGate } from './concurrency-gate.js';
import type { Engine, EngineResult, EngineRunOptions } from './engine.js';
import { MeasuredRequest } from './measured-request.js';
import { waitUntil } from './precise-wait.js';
import { enginePool, sendWithUndici } from './undici-send.js';

export interface OpenLoopOptions {
  /** Intended send time of each request, ms after t = 0, same order as the requests. */
  readonly offsetsMs: readonly number[];
  /** --max-concurrency; undefined = no cap. */
  readonly maxConcurrency?: number;
  /** --duration: nothing is sent this many ms or more after t = 0. */
  readonly sendUntilMs?: number;
  /** A budget limit (--max-cost): once aborted nothing more is sent, as at the --duration deadline. */
  readonly stopSending?: AbortSignal;
  /** performance.now() instant of t = 0 when it is not "now": a shard's shared start (loadgen/shards). */
  readonly startAtMs?: number;
}

export function createOpenLoopEngine(pacing: OpenLoopOptions): Engine {
  return { name: 'open-loop', run: (options) => runOpenLoop(options, pacing) };
}

async function runOpenLoop(options: EngineRunOptions, pacing: OpenLoopOptions): Promise<EngineResult> {
  const { target, requests, signal } = options;
  const cap = pacing.maxConcurrency;
  const pool = enginePool(target, options.idleTimeoutMs, cap ?? null);
  const gate = cap === undefined ? undefined : new ConcurrencyGate(cap);
  const aborts = new AbortHub(signal);
  aborts.add(() => gate?.drain(performance.now()));
  const inFlight: Array<Promise<void>> = [];
  let recorded = 0;
  let lastEndMs = 0;
  const startedAtMs = pacing.startAtMs ?? performance.now();
  // t = 0 is the instant itself, not the moment this wait ends: a late wake-up shows as schedule lag.
  if (performance.now() < startedAtMs) await waitUntil(startedAtMs, signal);
  const sendUntilMs = pacing.sendUntilMs ?? Number.POSITIVE_INFINITY;
  const stopSending = pacing.stopSending;
  const noMoreSends = stopSending === undefined ? signal : AbortSignal.any([signal, stopSending]);

  const launch = async (i: number): Promise<void> => {
    const request = requests[i];
    if (request === undefined) return;
    const slot = gate?.acquire();
    // An immediate slot is not awaited: the send leaves in this tick, as the schedule asked.
    const slotFreeAtMs =
      slot === undefined ? Number.NEGATIVE_INFINITY : typeof slot === 'number' ? slot : await slot;
    // Built once the slot is had, not while waiting for it: with --max-concurrency C and the whole schedule due at
    // once (rate inf), every request but C waits here, and a run of N requests would hold N measurements.
    const measured = new MeasuredRequest({
      index: request.index,
      promptTokens: request.promptTokens,
      runStartMs: startedAtMs,
      intendedOffsetMs: pacing.offsetsMs[i] ?? 0,
      protocol: target.protocol,
      tokenizer: options.tokenizer,
      keepText: options.keepText,
      errorBodyBytes: options.errorBodyBytes,
      idleTimeoutMs: options.idleTimeoutMs,
      trace: newSpan(),
      ...(request.cancelAfterMs === undefined ? {} : { cancelAfterMs: request.cancelAfterMs }),
    });
    const now = performance.now();
    // The cap held it back only from its intended time until a slot was free; anything later is the load
    // generator's own lag (a scheduler busy dispatching a burst is not the cap's doing).
    const queuedMs = Math.max(0, slotFreeAtMs - (startedAtMs + (pacing.offsetsMs[i] ?? 0)));
    // A --duration run sends nothing after its deadline, nor a run past its budget: a request that got its slot
    // only then is dropped unsent.
    const waited = slot !== undefined && typeof slot !== 'number';
    if (waited && (stopSending?.aborted || (!signal.aborted && now - startedAtMs >= sendUntilMs))) {
      gate?.release(now);
      return;
    }
    let record: RequestRecord;
    if (signal.aborted) {
      record = measured.abortUnsent(queuedMs);
    } else {
      measured.markSent(now, queuedMs);
      options.onSent?.(request.index);
      record = await sendWithUndici(pool, target, request, measured, aborts);
      gate?.release(performance.now());
    }
    lastEndMs = Math.max(lastEndMs, performance.now());
    recorded++;
    options.onRecord(record, startedAtMs);
  };

  for (let i = 0; i < requests.length; i++) {
    if (noMoreSends.aborted || (pacing.offsetsMs[i] ?? 0) >= sendUntilMs) break;
    const dueAt = startedAtMs + (pacing.offsetsMs[i] ?? 0);
    if (performance.now() < dueAt) await waitUntil(dueAt, noMoreSends);
    if (noMoreSends.aborted) break;
    inFlight.push(launch(i));
  }
  await Promise.all(inFlight);
  aborts.dispose();
  await pool.destroy();
  return {
    startedAtMs,
    durationMs: Math.max(0, (lastEndMs || performance.now()) - startedAtMs),
    recorded,
    aborted: signal.aborted,
  };
}
