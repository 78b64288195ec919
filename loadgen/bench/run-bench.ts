// One benchmark run, start to finish, with no printing of its own: tokenizer and dataset, bodies, schedule, the
// features' hooks (features.ts), the engine, records streamed to disk. It produces records and counts (RunOutput);
// aggregate.ts makes the figures of them. The bench and sweep commands and the demo call runBench and decide what
// to show.

import { backendProtocol, requestHeaders } from '../../src/protocols/backends.js';
import { keyHeaderShown } from '../../src/protocols/index.js';
import type { SpanExport } from '../../src/tracing/span-export.js';
import { arrivalSchedule } from '../arrivals.js';
import { RunBudget } from '../cost/budget.js';
import { hasLimits } from '../cost/cost-settings.js';
import type { SampleRequest } from '../datasets/sample-request.js';
import type { Engine, PreparedRequest } from '../engine/engine.js';
import { createOpenLoopEngine } from '../engine/open-loop-engine.js';
import { createSessionEngine, type SessionCounts, type SessionPacing } from '../engine/session-engine.js';
import { type AnyRunFeature, type FeatureRun, SampleChannel } from '../feature.js';
import type { GatewaySide } from '../gateway-timings.js';
import { cancelledByRun, type RequestRecord } from '../record.js';
import { interruptionOf } from '../report/interruption.js';
import { pythonFloatStr } from '../report/python-format.js';
import { sessionsFeature } from '../report/session-turns.js';
import type { ServerSample } from '../server-metrics/server-scraper.js';
import { shardOfRun } from '../shards/shard-spec.js';
import { startTimeMs } from '../shards/start-instant.js';
import { loadTokenizer } from '../tokenizer/hf-tokenizer.js';
import type { Tokenizer } from '../tokenizer/tokenizer.js';
import { PythonRandom } from '../vllm-random/python-random.js';
import { type AgentRun, agentRunOf } from './agent-run.js';
import { aggregateRun, type BenchRunResult, type RunOutput } from './aggregate.js';
import { clientSpanSink } from './client-spans.js';
import { BENCH_FEATURES } from './features.js';
import { type LoadedDataset, loadDataset } from './load-dataset.js';
import { cycleRequests, loraModelNames, prepareRequests, sessionTurnBody } from './prepare-requests.js';
import { PROBE_OUTPUT_TOKENS, PROBE_PROMPT, ProbeLoop, probeStats } from './probe-requests.js';
import { ProgressDisplay, type ProgressStream } from './progress.js';
import { RecordsFile, type RecordsFileCounts } from './records-file.js';
import type { RunSpanReceiver } from './run-span-receiver.js';
import type { BenchSettings } from './settings.js';
import { waitUntilReady, warmUp } from './warm-up.js';

/** Default closed-loop concurrency when --max-concurrency is not given. */
export const DEFAULT_CLOSED_LOOP_CONCURRENCY = 8;
const ERROR_BODY_BYTES = 2048;
const SMOKE_BODY_BYTES = 64 * 1024;

export interface BenchRunInput {
  readonly settings: BenchSettings;
  /** The `model` field sent (resolved before: --served-model-name, --model, or the server's). */
  readonly model: string;
  /** Where records stream to, or null. */
  readonly recordsPath: string | null;
  readonly signal: AbortSignal;
  readonly progressStream: ProgressStream;
  /** Loaded once by a sweep and shared by its levels. */
  readonly tokenizer?: Tokenizer;
  readonly dataset?: LoadedDataset;
  /** The gateway's records of the run when the caller holds them (the demo's gateway runs in its process). */
  readonly gatewayRecords?: readonly GatewaySide[];
  /** Lines about the ready check and the warm-up, when there are any. */
  readonly say?: (line: string) => void;
}

// autocannon (the closed loop) and the OpenTelemetry SDK (span export) are loaded only by the runs that use
// them: together they are about a third of the load generator's start-up CPU (bench/loadgen-cost.ts).
async function chooseEngine(
  settings: BenchSettings,
  offsetsMs: number[],
  maxConcurrency: number | undefined,
  startAtMs: number | undefined,
  stopSending: AbortSignal,
  sessions: SessionEngineInput | undefined,
  agent: AgentRun | undefined,
): Promise<Engine> {
  if (agent !== undefined) return agent.engine;
  if (sessions !== undefined) return createSessionEngine(sessions.pacing, sessions.counts);
  if (settings.engine === 'closed-loop') {
    const { createClosedLoopEngine } = await import('../engine/closed-loop-engine.js');
    return createClosedLoopEngine(maxConcurrency ?? DEFAULT_CLOSED_LOOP_CONCURRENCY);
  }
  return createOpenLoopEngine({
    offsetsMs,
    stopSending,
    ...(maxConcurrency === undefined ? {} : { maxConcurrency }),
    ...(settings.duration === undefined ? {} : { sendUntilMs: settings.duration.ms }),
    ...(startAtMs === undefined ? {} : { startAtMs }),
  });
}

function replaysRecordedSchedule(settings: BenchSettings, dataset: LoadedDataset): boolean {
  return (
    dataset.recordedOffsetsMs !== undefined &&
    (dataset.selfTimed === true || (!Number.isFinite(settings.requestRate) && settings.rampUp === undefined))
  );
}

/** How many requests the run readies: the dataset's; with --duration, what the rate can send in that time (one
 *  more, so the schedule reaches past the deadline) or the typed --num-prompts. A recorded schedule is replayed
 *  once. (--duration with an infinite rate and no --num-prompts is refused with the flags.) */
export function requestCount(settings: BenchSettings, dataset: LoadedDataset): number {
  const bound = settings.duration;
  if (bound === undefined || replaysRecordedSchedule(settings, dataset)) return dataset.requests.length;
  return bound.maxRequests ?? Math.ceil((settings.requestRate * bound.ms) / 1000) + 1;
}

function schedule(settings: BenchSettings, dataset: LoadedDataset, count: number): number[] {
  if (replaysRecordedSchedule(settings, dataset) && dataset.recordedOffsetsMs !== undefined) {
    return dataset.recordedOffsetsMs;
  }
  return arrivalSchedule(count, {
    requestRate: settings.requestRate,
    burstiness: settings.burstiness,
    seed: settings.seed,
    ...(settings.rampUp === undefined ? {} : { rampUp: settings.rampUp }),
    ...(dataset.numpyRandom === undefined ? {} : { numpyRandom: dataset.numpyRandom }),
  }).offsetsMs;
}

/** What sets the run's pace, for the progress ETA: the last intended send time when arrivals are spread over time
 *  on the open loop (not every request at t = 0), and the most requests in flight when something caps them
 *  (--max-concurrency, or the closed loop's users). A run may have both: a rate of 1/s under a cap of 32. */
function progressPace(
  settings: BenchSettings,
  offsetsMs: readonly number[],
  maxConcurrency: number | undefined,
): { scheduleEndMs?: number; concurrencyCap?: number } {
  if (settings.engine === 'closed-loop')
    return { concurrencyCap: maxConcurrency ?? DEFAULT_CLOSED_LOOP_CONCURRENCY };
  const end = offsetsMs.reduce((latest, offset) => Math.max(latest, offset), 0);
  return {
    ...(end > 0 ? { scheduleEndMs: end } : {}),
    ...(maxConcurrency === undefined ? {} : { concurrencyCap: maxConcurrency }),
  };
}

interface SessionEngineInput {
  readonly pacing: SessionPacing;
  readonly counts: SessionCounts;
}

/** --multi-turn: one arrival per session, turns built from the history as it happens (prepare-requests.ts). */
function sessionEngineInput(
  settings: BenchSettings,
  dataset: LoadedDataset,
  model: string,
): SessionEngineInput | undefined {
  const spans = dataset.sessions;
  if (spans === undefined || settings.sessions === undefined) return undefined;
  const payload = { ...settings.payload, protocol: settings.target.protocol, model };
  return {
    pacing: {
      sessions: spans,
      offsetsMs: schedule(settings, dataset, spans.length),
      ...(settings.sessions.maxActive === undefined ? {} : { maxActive: settings.sessions.maxActive }),
      thinkTime: settings.sessions.thinkTime,
      seed: settings.seed,
      turnBody: (index, history) =>
        sessionTurnBody(dataset.requests[index] as SampleRequest, history, payload),
      userMessage: (index) => (dataset.requests[index] as SampleRequest).prompt,
    },
    counts: { notSentAfterFailure: 0, notSentAfterCancel: 0, notSentStopped: 0 },
  };
}

/** vLLM's probe: the run's model, backend and body options around PROBE_PROMPT, asking for one token. */
function probeRequest(settings: BenchSettings, model: string): PreparedRequest {
  const sample = {
    prompt: PROBE_PROMPT,
    promptTokens: 1,
    outputTokens: PROBE_OUTPUT_TOKENS,
    sourceId: 'probe',
  };
  const payload = { ...settings.payload, protocol: settings.target.protocol, model };
  return prepareRequests([sample], payload, `${settings.requestIdPrefix}probe-`)[0] as PreparedRequest;
}

/** The features this run uses, each with its own settings (loadgen/features.ts). */
function featuresOf(settings: BenchSettings): Array<{ feature: AnyRunFeature; own: unknown }> {
  return BENCH_FEATURES.flatMap((feature) => {
    const own = feature.settingsOf(settings);
    return own === undefined ? [] : [{ feature, own }];
  });
}

/** One run: its records, its counts and what its features saw, then its figures (aggregate.ts). */
export async function runBench(input: BenchRunInput): Promise<BenchRunResult> {
  const { settings } = input;
  const output = await runLoad(input);
  return aggregateRun(output, settings, {
    target: {
      path: settings.target.path,
      model: input.model,
      keyHeader: keyHeaderShown(backendProtocol(settings.target.backend).auth),
      ...(settings.apiKey.key === undefined ? {} : { keySource: settings.apiKey.source }),
    },
    ...(input.gatewayRecords === undefined ? {} : { gatewayRecords: input.gatewayRecords }),
  });
}

/** The run itself: records and counts, no figures. */
export async function runLoad(input: BenchRunInput): Promise<RunOutput> {
  const { settings } = input;
  const features = featuresOf(settings);
  const tokenizer = input.tokenizer ?? (await loadTokenizer(settings.tokenizer));
  const dataset = input.dataset ?? (await loadDataset(settings.dataset, tokenizer));
  const sessions = sessionEngineInput(settings, dataset, input.model);
  const agent = agentRunOf(settings, dataset, input.model, tokenizer);
  const lora = settings.lora;
  const models =
    lora === undefined
      ? undefined
      : loraModelNames(
          dataset.requests.length,
          lora.modules,
          lora.assignment,
          dataset.pythonRandom ?? new PythonRandom(settings.seed),
        );
  const prepared: PreparedRequest[] = cycleRequests(
    prepareRequests(
      dataset.requests,
      { ...settings.payload, protocol: settings.target.protocol, model: input.model },
      settings.requestIdPrefix,
      models,
    ),
    requestCount(settings, dataset),
    settings.requestIdPrefix,
  );
  // Features that mark requests do it over the whole run, before it is split into shards, so every shard agrees.
  const allRequests = features.reduce(
    (list, { feature, own }) => feature.prepare?.(list, own, settings.seed) ?? list,
    prepared,
  );
  // A shard keeps its slice of the whole run's requests and schedule (--shard, --workers).
  const { requests, offsetsMs, maxConcurrency } = shardOfRun(
    allRequests,
    schedule(settings, dataset, allRequests.length),
    settings,
  );
  const headers = requestHeaders(settings.target.backend, settings.apiKey.key, settings.headers);

  const target = {
    origin: settings.target.origin,
    path: settings.target.path,
    headers,
    protocol: settings.target.protocol,
    ...(settings.insecure === true ? { insecure: true } : {}),
  };
  // vLLM's ready check and warm-ups, before anything of the run (its clock, progress, records) starts.
  const first = allRequests[0];
  const unrecorded = {
    target,
    tokenizer,
    idleTimeoutMs: settings.idleTimeoutMs,
    errorBodyBytes: ERROR_BODY_BYTES,
    signal: input.signal,
  };
  const say = input.say ?? ((): void => undefined);
  if (first !== undefined && (settings.readyCheckTimeoutS ?? 0) > 0)
    await waitUntilReady(unrecorded, first, settings.readyCheckTimeoutS ?? 0, say);
  if (first !== undefined && (settings.warmups ?? 0) > 0)
    await warmUp(unrecorded, first, settings.warmups ?? 0, maxConcurrency, say);

  const stop = new AbortController();
  // A budget limit stops the sends; with --on-limit cancel it also stops what is in flight (the closed loop has
  // only that: its settings refuse --on-limit finish).
  const stopSending = new AbortController();
  const budget = hasLimits(settings.cost.limits)
    ? new RunBudget(settings.cost.limits, settings.cost.price)
    : undefined;
  const file = input.recordsPath === null ? undefined : await RecordsFile.open(input.recordsPath);
  let interruptedAt: Date | null = null;
  const onOuterAbort = (): void => {
    interruptedAt = new Date();
    stop.abort();
  };
  input.signal.addEventListener('abort', onOuterAbort, { once: true });
  const progress = new ProgressDisplay(requests.length, input.progressStream, settings.progress, {
    ...progressPace(settings, offsetsMs, maxConcurrency),
  });
  const records: RequestRecord[] = [];
  const spans: SpanExport | null =
    settings.spanExport === null
      ? null
      : new (await import('../../src/tracing/span-export.js')).SpanExport(settings.spanExport);
  const spanOf =
    spans === null
      ? null
      : clientSpanSink(
          spans,
          { origin: settings.target.origin, protocol: settings.target.protocol, model: input.model },
          settings.genAiSemconv,
        );
  let smokeFailure: RequestRecord | undefined;
  // What the run does with a record the moment its request ends, after handing it on: the budget and the smoke
  // test stop the run at once, whether or not the record waits for its server's span.
  const onFinished = (record: RequestRecord): void => {
    if (budget?.add(record) !== undefined) {
      stopSending.abort();
      if (settings.cost.limits.onLimit === 'cancel') stop.abort();
    }
    if (settings.smoke && record.outcome !== 'ok' && !cancelledByRun(record) && smokeFailure === undefined) {
      smokeFailure = record;
      stop.abort();
    }
  };
  const accept = (record: RequestRecord): void => {
    records.push(record);
    file?.write(record);
    progress.onRecord(record);
  };
  let result: Awaited<ReturnType<Engine['run']>>;
  let spanReceiver: RunSpanReceiver | null = null;
  let recordsCounts: RecordsFileCounts | undefined;
  const running: Array<{ feature: AnyRunFeature; run: FeatureRun<unknown> }> = [];
  let probes: ProbeLoop | undefined;
  let probeRecords: readonly RequestRecord[] | undefined;
  try {
    // With --span-receiver-port, each record waits for its server's span before it is accepted.
    // Loaded only then: a plain run never reads OTLP.
    const joining =
      settings.spanReceiver === undefined
        ? null
        : await (await import('./run-span-receiver.js')).RunSpanReceiver.start(settings.spanReceiver, accept);
    spanReceiver = joining;
    const startAtMs = settings.start === undefined ? undefined : await startTimeMs(settings.start);
    const context = {
      origin: settings.target.origin,
      dueMs:
        settings.engine === 'closed-loop' || sessions !== undefined || agent !== undefined ? [] : offsetsMs,
      t0Ms: startAtMs ?? performance.now(),
      stopRun: () => {
        stopSending.abort();
        stop.abort();
      },
      serverSamples: new SampleChannel<ServerSample>(),
    };
    // The baseline samples are taken before the first request is sent.
    await Promise.all(
      features.map(async ({ feature, own }) => {
        const run = await feature.start?.(own, context);
        if (run !== undefined) running.push({ feature, run });
      }),
    );
    const probeRate = settings.probeRequestRate ?? 0;
    if (probeRate > 0) {
      say(`Probe request rate: ${pythonFloatStr(probeRate)} req/s`);
      probes = ProbeLoop.start(
        { ...unrecorded, signal: stop.signal },
        probeRequest(settings, input.model),
        probeRate,
        `${settings.requestIdPrefix}probe-`,
      );
    }
    const engine = await chooseEngine(
      settings,
      offsetsMs,
      maxConcurrency,
      startAtMs,
      stopSending.signal,
      sessions,
      agent,
    );
    const watching = running.filter(({ run }) => run.onRecord !== undefined);
    result = await engine.run({
      target,
      requests,
      tokenizer,
      keepText: settings.save.detailed || settings.smoke,
      idleTimeoutMs: settings.idleTimeoutMs,
      errorBodyBytes: settings.smoke ? SMOKE_BODY_BYTES : ERROR_BODY_BYTES,
      signal: stop.signal,
      onSent: () => progress.onSent(),
      onRecord: (record, runStartMs) => {
        // The response has just ended: this is the span's end, on the same clock as the run's t = 0.
        spanOf?.(record, runStartMs, performance.now());
        if (joining === null) accept(record);
        else joining.settle(record);
        for (const { run } of watching) run.onRecord?.(record, runStartMs);
        onFinished(record);
      },
    });
    await joining?.finish(stop.signal);
  } finally {
    // The probes stop once the run has drained (an error stops them too), before the features' last samples.
    probeRecords = await probes?.stop();
    // The last samples, after the drain.
    await Promise.all(running.map(({ run }) => run.stop()));
    // After an error the wait is cut short; every record still waiting is accepted without its span.
    await spanReceiver?.finish(AbortSignal.abort());
    progress.stop();
    recordsCounts = await file?.close();
    input.signal.removeEventListener('abort', onOuterAbort);
    await spans?.shutdown();
  }
  records.sort((a, b) => a.index - b.index);
  const seen = new Map<AnyRunFeature, unknown>();
  for (const { feature, run } of running) {
    const what = run.seen(result.startedAtMs);
    if (what !== undefined) seen.set(feature, what);
  }
  // The session engine is the run's own; what it counted is the sessions feature's.
  if (sessions !== undefined)
    seen.set(sessionsFeature, {
      sessions: sessions.pacing.sessions.length,
      turnsPlanned: requests.length,
      ...sessions.counts,
    });
  if (agent !== undefined)
    seen.set(sessionsFeature, {
      sessions: agent.sessions,
      turnsPlanned: requests.length,
      ...agent.counts,
      from: 'agentic trace',
    });
  const interruption = interruptionOf(interruptedAt, records, requests.length);
  const probed = probeRecords === undefined ? undefined : probeStats(probeRecords);
  return {
    records,
    startedAtMs: result.startedAtMs,
    durationMs: result.durationMs,
    tokenizer,
    dataset,
    planned: requests.length,
    interrupted: input.signal.aborted,
    ...(interruption === undefined ? {} : { interruption }),
    ...(budget?.stop === undefined ? {} : { budgetStop: budget.stop }),
    ...(smokeFailure === undefined ? {} : { smokeFailure }),
    recordsPath: input.recordsPath,
    ...(recordsCounts === undefined ? {} : { recordsCounts }),
    ...(spans === null ? {} : { spans: spans.counts }),
    ...(probed === undefined ? {} : { probes: probed }),
    seen,
  };
}
