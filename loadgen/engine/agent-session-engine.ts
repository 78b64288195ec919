// The agent replay engine (bench --dataset-name agentic): a trace's sessions, each one's turns in order, each turn
// sent its recorded wait (times the time scale) after the previous turn's answer ended, as the captured agent ran
// its tools and thought. What a turn sends is the source's business (loadgen/agent/session-turns.ts: the model's
// actual answer carried into the next turn's history); this file is the pacing, the timing and the records.
//
// Sessions start either on an open-loop schedule (the trace's own offsets, scaled, or a rate of sessions: the
// caller computes the offsets) or closed-loop: a fixed number of sessions in flight, the next one starting when
// one ends (what `sweep --search sessions` varies). The wait is measured from the answer's last byte as this
// process saw it (the moment its record was made) to the send, on the monotonic clock, and waited precisely
// (precise-wait.ts); a busy event loop shows as lag in the record, not as a longer wait.
//
// A turn that does not end `ok` ends its session (the turns after it would carry a history the model never
// produced): they are not sent, have no record, and are counted, as --multi-turn does (session-engine.ts).

import { performance } from 'node:perf_hooks';
import { newSpan } from '../../src/shared/trace-context.js';
import type { AgentTurnFields, RequestRecord } from '../record.js';
import { AbortHub } from './abort-hub.js';
import type { Engine, EngineResult, EngineRunOptions, EngineTarget } from './engine.js';
import { MeasuredRequest } from './measured-request.js';
import { waitUntil } from './precise-wait.js';
import type { SessionCounts } from './session-engine.js';
import { enginePool, sendWithUndici } from './undici-send.js';

/** The most of an answer's body kept to read its tool calls from (an answer is rarely over a few hundred KB). */
const ANSWER_BYTES = 8 * 1024 * 1024;

/** One turn as its source planned it. */
export interface AgentTurnRequest {
  /** Which protocol's endpoint it goes to (a key of AgentPacing.targets). */
  readonly api: string;
  readonly body: Buffer;
  /** The prompt's length as the replay estimates the server will count it. */
  readonly promptTokens: number;
  readonly expectedCachedTokens: number;
  readonly fresh: boolean;
}

/** What the engine asks of the replay's sessions. */
export interface AgentSessionSource {
  readonly sessionCount: number;
  sessionId(session: number): string;
  turnCount(session: number): number;
  /** The recorded wait before turn `turn` (ms, unscaled); 0 for turn 0. */
  recordedWaitMs(session: number, turn: number): number;
  recordedLengths(session: number, turn: number): { readonly input: number; readonly output: number };
  /** Turn `turn`'s request, once turn - 1 was answered. */
  plan(session: number, turn: number): AgentTurnRequest;
  /** Turn `turn` ended ok: its answer's body, and the server's count of its prompt (null without usage). */
  answered(session: number, turn: number, answerBody: string, usagePromptTokens: number | null): number;
}

export interface AgentPacing {
  readonly source: AgentSessionSource;
  /** The endpoint of each protocol a turn may use. */
  readonly targets: Readonly<Record<string, EngineTarget>>;
  /** Recorded waits are multiplied by this (0.5: twice as fast). */
  readonly timeScale: number;
  /** Open loop: each session's start, ms after t = 0 (already scaled). */
  readonly offsetsMs?: readonly number[];
  /** Closed loop: this many sessions in flight at all times, until the trace's sessions run out. */
  readonly concurrentSessions?: number;
}

export function createAgentSessionEngine(pacing: AgentPacing, counts: SessionCounts): Engine {
  return { name: 'agent-sessions', run: (options) => runAgentSessions(options, pacing, counts) };
}

async function runAgentSessions(
  options: EngineRunOptions,
  pacing: AgentPacing,
  counts: SessionCounts,
): Promise<EngineResult> {
  const { source, targets } = pacing;
  const { signal } = options;
  const anyTarget = Object.values(targets)[0] as EngineTarget;
  const pool = enginePool(anyTarget, options.idleTimeoutMs, pacing.concurrentSessions ?? null);
  const aborts = new AbortHub(signal);
  const startedAtMs = performance.now();
  let recorded = 0;
  let lastEndMs = 0;
  // A turn's index in the run: its session's first turn's, plus the turn (sessions in trace order).
  const firstIndex: number[] = [];
  for (let s = 0, next = 0; s < source.sessionCount; s++) {
    firstIndex.push(next);
    next += source.turnCount(s);
  }

  const runSession = async (s: number, startOffsetMs: number): Promise<void> => {
    const turns = source.turnCount(s);
    let intendedOffsetMs = startOffsetMs;
    let previousEndAt: number | undefined;
    for (let k = 0; k < turns; k++) {
      if (signal.aborted) {
        counts.notSentStopped += turns - k;
        return;
      }
      const planned = source.plan(s, k);
      const target = targets[planned.api] ?? anyTarget;
      const index = (firstIndex[s] as number) + k;
      const prepared = options.requests[index];
      const measured = new MeasuredRequest({
        index,
        promptTokens: planned.promptTokens,
        runStartMs: startedAtMs,
        intendedOffsetMs,
        protocol: target.protocol,
        tokenizer: options.tokenizer,
        keepText: options.keepText,
        errorBodyBytes: options.errorBodyBytes,
        idleTimeoutMs: options.idleTimeoutMs,
        trace: newSpan(),
        keepAnswerBytes: ANSWER_BYTES,
      });
      const sentAt = performance.now();
      measured.markSent(sentAt);
      options.onSent?.(index);
      const request = {
        index,
        body: planned.body,
        promptTokens: planned.promptTokens,
        ...(prepared?.requestId === undefined ? {} : { requestId: prepared.requestId }),
      };
      const record: RequestRecord = await sendWithUndici(pool, target, request, measured, aborts);
      const endedAt = performance.now();
      lastEndMs = Math.max(lastEndMs, endedAt);
      const ok = record.outcome === 'ok';
      const toolCalls = ok
        ? source.answered(s, k, measured.answerBody(), record.usagePromptTokens ?? null)
        : 0;
      const lengths = source.recordedLengths(s, k);
      const agent: AgentTurnFields = {
        recordedPromptTokens: lengths.input,
        recordedOutputTokens: lengths.output,
        expectedCachedTokens: planned.expectedCachedTokens,
        plannedWaitMs: k === 0 ? 0 : source.recordedWaitMs(s, k) * pacing.timeScale,
        waitedMs: previousEndAt === undefined ? null : sentAt - previousEndAt,
        toolCalls,
        fresh: planned.fresh,
      };
      record.sessionId = source.sessionId(s);
      record.turn = k + 1;
      record.agent = agent;
      recorded++;
      options.onRecord(record, startedAtMs);
      if (!ok) {
        counts.notSentAfterFailure += turns - k - 1;
        return;
      }
      if (k + 1 < turns) {
        previousEndAt = endedAt;
        intendedOffsetMs = endedAt - startedAtMs + source.recordedWaitMs(s, k + 1) * pacing.timeScale;
        await waitUntil(startedAtMs + intendedOffsetMs, signal);
      }
    }
  };

  const sessionCount = source.sessionCount;
  if (pacing.concurrentSessions !== undefined) {
    let cursor = 0;
    const worker = async (): Promise<void> => {
      while (cursor < sessionCount) {
        const s = cursor++;
        if (signal.aborted) {
          counts.notSentStopped += source.turnCount(s);
          continue;
        }
        await runSession(s, performance.now() - startedAtMs);
      }
    };
    await Promise.all(Array.from({ length: Math.min(pacing.concurrentSessions, sessionCount) }, worker));
  } else {
    const running: Promise<void>[] = [];
    for (let s = 0; s < sessionCount; s++) {
      const offset = pacing.offsetsMs?.[s] ?? 0;
      if (performance.now() < startedAtMs + offset) await waitUntil(startedAtMs + offset, signal);
      if (signal.aborted) {
        for (let rest = s; rest < sessionCount; rest++) counts.notSentStopped += source.turnCount(rest);
        break;
      }
      running.push(runSession(s, offset));
    }
    await Promise.all(running);
  }
  aborts.dispose();
  await pool.destroy();
  return {
    startedAtMs,
    durationMs: Math.max(0, (lastEndMs || performance.now()) - startedAtMs),
    recorded,
    aborted: signal.aborted,
  };
}
