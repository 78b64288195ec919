// The session engine (`bench --multi-turn`): conversations instead of independent requests. Sessions start on
// the open-loop schedule (arrivals.ts: one arrival per session), at most `maxActive` at a time (a session that
// finds no free place waits, and that wait is its first turn's client queue time, as --max-concurrency's is for
// single requests). Within a session the turns go one after another: turn k is sent a think time after turn k-1
// ended, carrying the whole history with the answers the model actually gave (prepare-requests.ts). Each turn is
// timed and recorded like any request (same MeteredHandler, same outcome rule), with its session and turn number;
// its intended time is the moment its think time ended, so schedule lag keeps its meaning.
//
// A turn that does not end `ok` ends its session: the turns after it would carry a history the model never
// produced. They are not sent and have no record; the run counts them (notSentAfterFailure, or notSentAfterCancel
// after a turn --request-cancellation-rate cancelled: that user left).

import { performance } from 'node:perf_hooks';
import { PLANNED_CANCEL } from '../../src/measure/outcome.js';
import { hashSeed, SeededRandom } from '../../src/shared/random.js';
import { newSpan } from '../../src/shared/trace-context.js';
import type { SessionSpan } from '../datasets/sharegpt-sessions.js';
import type { RequestRecord } from '../record.js';
import { AbortHub } from './abort-hub.js';
import { ConcurrencyGate } from './concurrency-gate.js';
import type { Engine, EngineResult, EngineRunOptions } from './engine.js';
import { MeasuredRequest } from './measured-request.js';
import { waitUntil } from './precise-wait.js';
import { enginePool, sendWithUndici } from './undici-send.js';

/** Think time between a turn's end and the next turn's send: fixed (min = max) or uniform in [min, max]. */
/** One message of a session's history: what the user sent, or what the model answered. */
export interface SessionMessage {
  readonly role: 'user' | 'assistant';
  readonly content: string;
}

export interface ThinkTime {
  readonly minMs: number;
  readonly maxMs: number;
}

export interface SessionPacing {
  readonly sessions: readonly SessionSpan[];
  /** Intended start of each session, ms after t = 0. */
  readonly offsetsMs: readonly number[];
  /** --max-active-conversations; undefined = no cap. */
  readonly maxActive?: number;
  readonly thinkTime: ThinkTime;
  readonly seed: number;
  /** The body of request `index` (a turn) after the given history. */
  readonly turnBody: (index: number, history: readonly SessionMessage[]) => Buffer;
  /** The user message of request `index`, as the history of later turns carries it. */
  readonly userMessage: (index: number) => string;
}

/** Turns planned but never sent, by why; read once the run ended. */
export interface SessionCounts {
  /** An earlier turn of their session failed (did not end `ok`, and was not cancelled as planned). */
  notSentAfterFailure: number;
  /** An earlier turn of their session was cancelled by --request-cancellation-rate. */
  notSentAfterCancel: number;
  /** The run was stopped (Ctrl-C, a budget, --smoke) before their turn. */
  notSentStopped: number;
}

/** A finished run's sessions: how many, their turns, and the turns never sent. */
export interface SessionRunCounts extends SessionCounts {
  readonly sessions: number;
  readonly turnsPlanned: number;
  /** What the sessions were: --multi-turn's conversations (absent) or an agentic trace's sessions. */
  readonly from?: 'agentic trace';
}

export function createSessionEngine(pacing: SessionPacing, counts: SessionCounts): Engine {
  return { name: 'sessions', run: (options) => runSessions(options, pacing, counts) };
}

async function runSessions(
  options: EngineRunOptions,
  pacing: SessionPacing,
  counts: SessionCounts,
): Promise<EngineResult> {
  const { target, requests, signal } = options;
  const pool = enginePool(target, options.idleTimeoutMs, pacing.maxActive ?? null);
  const gate = pacing.maxActive === undefined ? undefined : new ConcurrencyGate(pacing.maxActive);
  const aborts = new AbortHub(signal);
  aborts.add(() => gate?.drain(performance.now()));
  const startedAtMs = performance.now();
  let recorded = 0;
  let lastEndMs = 0;

  const runSession = async (s: number): Promise<void> => {
    const session = pacing.sessions[s] as SessionSpan;
    const think = new SeededRandom(hashSeed('think-time', pacing.seed, s));
    const slot = gate?.acquire();
    const slotFreeAtMs =
      slot === undefined ? Number.NEGATIVE_INFINITY : typeof slot === 'number' ? slot : await slot;
    const history: SessionMessage[] = [];
    // The history's tokens by the run's tokenizer: a turn's prompt is all of it plus its own message, as the
    // server sees it (and as vLLM's multi-turn benchmark counts input tokens).
    let historyTokens = 0;
    let intendedOffsetMs = pacing.offsetsMs[s] ?? 0;
    let queuedMs = Math.max(0, slotFreeAtMs - (startedAtMs + intendedOffsetMs));
    for (let turn = 0; turn < session.turns; turn++) {
      const request = requests[session.first + turn];
      if (request === undefined) break;
      if (signal.aborted) {
        counts.notSentStopped += session.turns - turn;
        break;
      }
      const measured = new MeasuredRequest({
        index: request.index,
        promptTokens: historyTokens + request.promptTokens,
        runStartMs: startedAtMs,
        intendedOffsetMs,
        protocol: target.protocol,
        tokenizer: options.tokenizer,
        // The answer's text is the next turn's history; the record keeps it only when the run asked.
        keepText: true,
        errorBodyBytes: options.errorBodyBytes,
        idleTimeoutMs: options.idleTimeoutMs,
        trace: newSpan(),
        ...(request.cancelAfterMs === undefined ? {} : { cancelAfterMs: request.cancelAfterMs }),
      });
      const body = turn === 0 ? request.body : pacing.turnBody(request.index, history);
      measured.markSent(performance.now(), queuedMs);
      options.onSent?.(request.index);
      const record: RequestRecord = await sendWithUndici(
        pool,
        target,
        { ...request, body },
        measured,
        aborts,
      );
      const answer = record.generatedText ?? '';
      if (!options.keepText) delete record.generatedText;
      record.sessionId = session.sessionId;
      record.turn = turn + 1;
      const endedAt = performance.now();
      lastEndMs = Math.max(lastEndMs, endedAt);
      recorded++;
      options.onRecord(record, startedAtMs);
      if (record.outcome !== 'ok') {
        // A turn cancelled as planned (--request-cancellation-rate) ends its session too: its user left.
        if (record.outcome === PLANNED_CANCEL) counts.notSentAfterCancel += session.turns - turn - 1;
        else counts.notSentAfterFailure += session.turns - turn - 1;
        break;
      }
      history.push(
        { role: 'user', content: pacing.userMessage(request.index) },
        { role: 'assistant', content: answer },
      );
      historyTokens += request.promptTokens + options.tokenizer.count(answer);
      if (turn + 1 < session.turns) {
        const { minMs, maxMs } = pacing.thinkTime;
        const thinkMs = minMs + think.next() * (maxMs - minMs);
        // The user starts reading at the answer's last token (as the record stamped it), not when this loop got
        // round to it: a busy event loop must show as schedule lag, not as a longer think time.
        const answeredAt =
          record.sentAtMs !== null && record.lastTokenMs !== null
            ? record.sentAtMs + record.lastTokenMs
            : endedAt - startedAtMs;
        intendedOffsetMs = answeredAt + thinkMs;
        queuedMs = 0;
        await waitUntil(startedAtMs + intendedOffsetMs, signal);
      }
    }
    gate?.release(performance.now());
  };

  const running: Promise<void>[] = [];
  for (let s = 0; s < pacing.sessions.length; s++) {
    if (signal.aborted) {
      for (const rest of pacing.sessions.slice(s)) counts.notSentStopped += rest.turns;
      break;
    }
    const dueAt = startedAtMs + (pacing.offsetsMs[s] ?? 0);
    if (performance.now() < dueAt) await waitUntil(dueAt, signal);
    running.push(runSession(s));
  }
  await Promise.all(running);
  aborts.dispose();
  await pool.destroy();
  return {
    startedAtMs,
    durationMs: Math.max(0, (lastEndMs || performance.now()) - startedAtMs),
    recorded,
    aborted: signal.aborted,
  };
}
