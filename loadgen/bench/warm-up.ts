// What vLLM's client does with the first request before the measured run: with --ready-check-timeout-sec S,
// send it every 5 s until one succeeds (the server may still be loading), for at most S seconds, and stop the
// run if none did; with --num-warmups N, send it N times (within --max-concurrency) and wait for them all. None
// of these requests is recorded, counted or in the run's duration. Like vLLM's, they carry no x-request-id: the
// ids of the run's requests stay those of its records, and a server's log shows these as unnamed.

import { UserFacingError } from '../../src/shared/user-facing-error.js';
import type { EngineRunOptions, PreparedRequest } from '../engine/engine.js';
import { createOpenLoopEngine } from '../engine/open-loop-engine.js';
import type { RequestRecord } from '../record.js';

/** vLLM's retry interval (lib/ready_checker.py). */
export const READY_CHECK_RETRY_MS = 5000;

export type UnrecordedRunOptions = Omit<EngineRunOptions, 'requests' | 'onRecord' | 'onSent' | 'keepText'>;

/** Sends `copies` of `request` at once (at most `maxConcurrency` in flight) and returns their records. */
async function sendCopies(
  options: UnrecordedRunOptions,
  request: PreparedRequest,
  copies: number,
  maxConcurrency: number | undefined,
): Promise<RequestRecord[]> {
  const records: RequestRecord[] = [];
  const { requestId: _none, ...unnamed } = request;
  const requests = Array.from({ length: copies }, (_, index) => ({ ...unnamed, index }));
  await createOpenLoopEngine({
    offsetsMs: requests.map(() => 0),
    ...(maxConcurrency === undefined ? {} : { maxConcurrency }),
  }).run({ ...options, requests, keepText: false, onRecord: (record) => void records.push(record) });
  return records;
}

const why = (record: RequestRecord): string =>
  [record.outcome, record.status === null ? '' : `HTTP ${record.status}`, record.error ?? '']
    .filter((part) => part !== '')
    .join(', ');

export async function waitUntilReady(
  options: UnrecordedRunOptions,
  request: PreparedRequest,
  timeoutS: number,
  say: (line: string) => void,
): Promise<void> {
  const deadline = performance.now() + timeoutS * 1000;
  say(`ready check: sending the first request until it succeeds, for at most ${timeoutS} s`);
  let last = 'no answer before the deadline';
  for (let attempt = 0; performance.now() < deadline && !options.signal.aborted; attempt++) {
    const remainingMs = deadline - performance.now();
    const [record] = await sendCopies(
      { ...options, idleTimeoutMs: Math.max(1, Math.ceil(Math.min(options.idleTimeoutMs, remainingMs))) },
      request,
      1,
      undefined,
    );
    if (record?.outcome === 'ok') {
      say(`ready check: the first request succeeded (attempt ${attempt + 1})`);
      return;
    }
    if (record !== undefined) last = why(record);
    const pauseMs = Math.min(READY_CHECK_RETRY_MS, deadline - performance.now());
    if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
  throw new UserFacingError(
    `the endpoint was not ready within --ready-check-timeout-sec ${timeoutS} (last attempt: ${last}); check the server, or raise the timeout`,
  );
}

export async function warmUp(
  options: UnrecordedRunOptions,
  request: PreparedRequest,
  count: number,
  maxConcurrency: number | undefined,
  say: (line: string) => void,
): Promise<void> {
  say(`warm-up: sending the first request ${count} times (not recorded, not counted)`);
  const records = await sendCopies(options, request, count, maxConcurrency);
  const failed = records.filter((r) => r.outcome !== 'ok').length;
  say(`warm-up done: ${count - failed} of ${count} succeeded`);
}
