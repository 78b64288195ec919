// One benchmark run, start to finish, with no printing of its own: tokenizer and dataset, bodies, schedule,
// engine, records streamed to disk, then vLLM's metrics and ours. The bench and sweep commands and the demo call
// this and decide what to show.

import { backendProtocol } from '../../src/protocols/backends.js';
import { keyHeaderShown } from '../../src/protocols/index.js';
import type { SpanExport, SpanExportCounts } from '../../src/tracing/span-export.js';
import { arrivalSchedule } from '../arrivals.js';
import { benchBreakdown, type RunBreakdown } from '../breakdown/run-breakdown.js';
import { cancellationDelays } from '../cancellation/cancellation-plan.js';
import {
  cancellationCounts,
  cancelledByRun,
  type RunCancellations,
} from '../cancellation/cancelled-requests.js';
import { type BudgetStop, RunBudget } from '../cost/budget.js';
import { hasLimits } from '../cost/cost-settings.js';
import type { SampleRequest } from '../datasets/sample-request.js';
import { type EarlyStop, EarlyStopWatch } from '../early-stop/early-stop.js';
import { stopsEarly } from '../early-stop/early-stop-settings.js';
import type { Engine, PreparedRequest } from '../engine/engine.js';
import { createOpenLoopEngine } from '../engine/open-loop-engine.js';
import {
  createSessionEngine,
  type SessionCounts,
  type SessionPacing,
  type SessionRunCounts,
} from '../engine/session-engine.js';
import { GpuSampling } from '../gpu-metrics/gpu-sampling.js';
import type { GpuMetricsRun } from '../gpu-metrics/gpu-tracks.js';
import { type ExtraMetrics, extraMetrics } from '../metrics/extra-metrics.js';
import { type VllmMetrics, vllmMetrics } from '../metrics/vllm-metrics.js';
import type { RequestRecord } from '../record.js';
import { pythonFloatStr } from '../report/python-format.js';
import type { Verdict } from '../report/verdicts.js';
import type { VllmRunSections } from '../report/vllm-summary.js';
import { type ServerMetricsRun, serverMetricsRun } from '../server-metrics/server-metrics-json.js';
import { ServerMetricsScraper } from '../server-metrics/server-scraper.js';
import { clientTtftOf } from '../server-metrics/server-section.js';
import { seriesOfScrape } from '../server-metrics/server-series.js';
import { verdictsWithServer } from '../server-metrics/server-verdict.js';
import { type SpecDecodeStats, specDecodeOfScrape } from '../server-metrics/spec-decode.js';
import { shardOfRun } from '../shards/shard-of-run.js';
import { startTimeMs } from '../shards/start-instant.js';
import { loadTokenizer } from '../tokenizer/load-tokenizer.js';
import type { Tokenizer } from '../tokenizer/tokenizer.js';
import { PythonRandom } from '../vllm-random/python-random.js';
import { clientSpanSink } from './client-spans.js';
import type { GatewaySide } from './gateway-timings.js';
import { type Interruption, interruptionOf, measuredRecords } from './interruption.js';
import { type LoadedDataset, loadDataset } from './load-dataset.js';
import { loraModelNames } from './lora-modules.js';
import { cycleRequests, prepareRequests } from './prepare-requests.js';
import {
  PROBE_OUTPUT_TOKENS,
  PROBE_PROMPT,
  ProbeLoop,
  type ProbeStats,
  probeStats,
} from './probe-requests.js';
import { ProgressDisplay, type ProgressStream } from './progress.js';
import { RecordsFile, type RecordsFileCounts } from './records-file.js';
import { requestHeaders } from './request-headers.js';
import { RunSpanReceiver } from './run-span-receiver.js';
import { sessionTurnBody } from './session-bodies.js';
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

export interface BenchRunResult {
  readonly records: RequestRecord[];
  /** performance.now() of the run's t = 0: records' offsets are relative to it. */
  readonly startedAtMs: number;
  readonly durationMs: number;
  readonly metrics: VllmMetrics;
  readonly extra: ExtraMetrics;
  readonly verdicts: Verdict[];
  readonly tokenizer: Tokenizer;
  readonly dataset: LoadedDataset;
  readonly planned: number;
  /** Stopped by the caller's signal (Ctrl-C), not by --smoke. */
  readonly interrupted: boolean;
  /** When it was stopped so and what that cancelled (left out of the figures). */
  readonly interruption?: Interruption;
  /** --max-cost / --max-total-tokens: the limit that stopped the run, when one did. */
  readonly budgetStop?: BudgetStop;
  /** --smoke: the first failing request, with as much of its answer as was kept. */
  readonly smokeFailure?: RequestRecord;
  readonly recordsPath: string | null;
  /** What became of the records streamed to `recordsPath`: written, or lost and why. */
  readonly recordsCounts?: RecordsFileCounts;
  /** Where each completed request's time went (loadgen/breakdown/), with the gateway's records when given. */
  readonly breakdown: RunBreakdown;
  /** With span export on: what became of the run's client spans, once the last were sent. */
  readonly spans?: SpanExportCounts;
  /** --multi-turn: the sessions and the turns that were never sent. */
  readonly sessions?: SessionRunCounts;
  /** The server's own /metrics through the run (loadgen/server-metrics/), or why there are none; absent when
   *  not asked for. */
  readonly serverMetrics?: ServerMetricsRun;
  /** The GPUs' figures through the run (loadgen/gpu-metrics/), or why a source asked for gave none; absent when
   *  none was read and nothing was asked. */
  readonly gpuMetrics?: GpuMetricsRun;
  /** vLLM's speculative-decoding figures, when the server's counters show drafts over the run. */
  readonly specDecode?: SpecDecodeStats;
  /** --probe-request-rate: the probes' figures, when one succeeded. */
  readonly probes?: ProbeStats;
  /** --stop-on-saturation / --max-error-rate: the rule that stopped the run, with its numbers. */
  readonly earlyStop?: EarlyStop;
  /** --request-cancellation-rate: what was asked, and how many were chosen and cancelled (left out of the figures). */
  readonly cancellation?: RunCancellations;
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
): Promise<Engine> {
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

/** vLLM's metrics and ours for a run's records, at the given percentiles (the thresholds may read more than
 *  --metric-percentiles reports). */
export function runFigures(
  records: readonly RequestRecord[],
  durationMs: number,
  settings: BenchSettings,
  percentiles: readonly number[],
): { metrics: VllmMetrics; extra: ExtraMetrics } {
  return {
    metrics: vllmMetrics(records, {
      durationMs,
      metricPercentiles: percentiles,
      ...(settings.goodput === undefined ? {} : { goodput: settings.goodput }),
      ...(settings.maxConcurrency === undefined ? {} : { maxConcurrency: settings.maxConcurrency }),
      requestRate: settings.requestRate,
    }),
    extra: extraMetrics(records, percentiles),
  };
}

interface SessionEngineInput {
  readonly pacing: SessionPacing;
  readonly counts: SessionCounts;
}

/** --multi-turn: one arrival per session, turns built from the history as it happens (session-bodies.ts). */
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

/** --request-cancellation-rate: the chosen requests carry their delay; drawn over the whole run before it is
 *  split into shards, so every shard agrees. */
function withCancellations(requests: PreparedRequest[], settings: BenchSettings): PreparedRequest[] {
  if (settings.cancellation === undefined) return requests;
  const delays = cancellationDelays(requests.length, settings.cancellation, settings.seed);
  return requests.map((request, i) => {
    const cancelAfterMs = delays[i];
    return cancelAfterMs === undefined ? request : { ...request, cancelAfterMs };
  });
}

/** What vLLM's summary and result add for this run (its probes, its server's speculative decoding). */
export function vllmSectionsOf(result: BenchRunResult): VllmRunSections {
  return {
    ...(result.probes === undefined ? {} : { probes: result.probes }),
    ...(result.specDecode === undefined ? {} : { specDecode: result.specDecode }),
    ...(result.gpuMetrics === undefined ? {} : { gpu: result.gpuMetrics }),
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

export async function runBench(input: BenchRunInput): Promise<BenchRunResult> {
  const { settings } = input;
  const tokenizer = input.tokenizer ?? (await loadTokenizer(settings.tokenizer));
  const dataset = input.dataset ?? (await loadDataset(settings.dataset, tokenizer));
  const sessions = sessionEngineInput(settings, dataset, input.model);
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
  const allRequests = withCancellations(prepared, settings);
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
  let scraper: ServerMetricsScraper | null = null;
  let gpuSampling: GpuSampling | null = null;
  let gpusOnRunClock: ((runStartedAtMs: number) => GpuMetricsRun | undefined) | undefined;
  let earlyStop: EarlyStop | undefined;
  let watchTimer: NodeJS.Timeout | undefined;
  let watch: EarlyStopWatch | null = null;
  let scrape: Awaited<ReturnType<ServerMetricsScraper['finish']>> | undefined;
  let probes: ProbeLoop | undefined;
  let probeRecords: readonly RequestRecord[] | undefined;
  try {
    // With --span-receiver-port, each record waits for its server's span before it is accepted.
    const joining =
      settings.spanReceiver === undefined ? null : await RunSpanReceiver.start(settings.spanReceiver, accept);
    spanReceiver = joining;
    const startAtMs = settings.start === undefined ? undefined : await startTimeMs(settings.start);
    // The baseline sample is taken before the first request is sent.
    [scraper, gpuSampling] = await Promise.all([
      settings.serverMetrics == null
        ? null
        : ServerMetricsScraper.start(settings.serverMetrics, settings.target.origin),
      settings.gpuMetrics == null ? null : GpuSampling.start(settings.gpuMetrics),
    ]);
    if (stopsEarly(settings.earlyStop)) {
      const rules = settings.earlyStop;
      const running = new EarlyStopWatch(
        rules,
        settings.engine === 'closed-loop' || sessions !== undefined ? [] : offsetsMs,
        startAtMs ?? performance.now(),
      );
      watch = running;
      scraper?.onSample((sample) => running.onServerSample(sample));
      watchTimer = setInterval(() => {
        earlyStop ??= running.check();
        if (earlyStop === undefined) return;
        clearInterval(watchTimer);
        stopSending.abort();
        stop.abort();
      }, rules.checkEveryMs);
    }
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
    );
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
        watch?.onRecord(record, runStartMs);
        onFinished(record);
      },
    });
    await joining?.finish(stop.signal);
  } finally {
    clearInterval(watchTimer);
    // The probes stop once the run has drained (an error stops them too), before the server's last sample.
    probeRecords = await probes?.stop();
    // The last sample, after the drain.
    const gpusFinished = gpuSampling?.finish();
    scrape = await scraper?.finish();
    gpusOnRunClock = await gpusFinished;
    // After an error the wait is cut short; every record still waiting is accepted without its span.
    await spanReceiver?.finish(AbortSignal.abort());
    progress.stop();
    recordsCounts = await file?.close();
    input.signal.removeEventListener('abort', onOuterAbort);
    await spans?.shutdown();
  }
  records.sort((a, b) => a.index - b.index);
  const interruption = interruptionOf(interruptedAt, records, requests.length);
  // A run cut short is measured on what ran: the requests Ctrl-C cancelled are no failures of the server.
  const measured = measuredRecords(records, interruption);
  const { metrics, extra } = runFigures(measured, result.durationMs, settings, settings.metricPercentiles);
  const breakdown = benchBreakdown(measured, settings, input.gatewayRecords);
  const serverMetrics =
    scrape === undefined
      ? undefined
      : serverMetricsRun(
          seriesOfScrape(scrape, result.startedAtMs),
          scrape.url,
          scrape.unavailable ?? 'no sample could be read',
        );
  const specDecode = scrape === undefined ? undefined : specDecodeOfScrape(scrape);
  const gpuMetrics = gpusOnRunClock?.(result.startedAtMs);
  const probed = probeRecords === undefined ? undefined : probeStats(probeRecords);
  const found = verdictsWithServer(measured, extra, serverMetrics, clientTtftOf(measured), {
    target: {
      path: settings.target.path,
      model: input.model,
      keyHeader: keyHeaderShown(backendProtocol(settings.target.backend).auth),
      ...(settings.apiKey.key === undefined ? {} : { keySource: settings.apiKey.source }),
    },
    breakdown: breakdown.summary,
  });
  return {
    records,
    startedAtMs: result.startedAtMs,
    durationMs: result.durationMs,
    metrics,
    extra,
    breakdown,
    verdicts: found,
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
    ...(sessions === undefined
      ? {}
      : {
          sessions: {
            sessions: sessions.pacing.sessions.length,
            turnsPlanned: requests.length,
            ...sessions.counts,
          },
        }),
    ...(serverMetrics === undefined ? {} : { serverMetrics }),
    ...(gpuMetrics === undefined ? {} : { gpuMetrics }),
    ...(specDecode === undefined ? {} : { specDecode }),
    ...(probed === undefined ? {} : { probes: probed }),
    ...(earlyStop === undefined ? {} : { earlyStop }),
    ...(settings.cancellation === undefined
      ? {}
      : { cancellation: { settings: settings.cancellation, counts: cancellationCounts(records) } }),
  };
}
