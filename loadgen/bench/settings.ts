// Everything one benchmark run needs, resolved and validated (from flags, the --config file and the
// environment) before anything is sent. The bench and sweep commands build it; run-bench.ts consumes it.

import type { GenAiSemconvVersion } from '../../src/tracing/genai-semconv.js';
import type { OtlpExportSettings } from '../../src/tracing/otlp-settings.js';
import type { AgentSettings } from '../agent/agent-feature.js';
import type { RampUp } from '../arrivals.js';
import type { CancellationSettings } from '../cancellation/cancellation-plan.js';
import type { CostSettings } from '../cost/cost-settings.js';
import type { EarlyStopSettings } from '../early-stop/early-stop-settings.js';
import type { ThinkTime } from '../engine/session-engine.js';
import type { GpuMetricsSettings } from '../gpu-metrics/gpu-metrics-settings.js';
import type { GoodputSlos, PercentileMetric } from '../metrics/metric-options.js';
import type { ServerMetricsSettings } from '../server-metrics/server-metrics-settings.js';
import type { ShardSpec } from '../shards/shard-spec.js';
import type { StartInstant } from '../shards/start-instant.js';
import type { Threshold } from '../thresholds/threshold.js';
import type { ResolvedKey } from './api-key.js';
import type { DatasetSettings } from './load-dataset.js';
import type { LoraAssignment, PayloadOptions } from './prepare-requests.js';
import type { ResolvedTarget } from './target-url.js';

export const ENGINE_NAMES = ['open-loop', 'closed-loop'] as const;
export type EngineName = (typeof ENGINE_NAMES)[number];

export interface SpanReceiverSettings {
  readonly host: string;
  readonly port: number;
  /** How long a finished request's record waits for its server's span. */
  readonly waitMs: number;
}

export interface SaveSettings {
  readonly result: boolean;
  readonly detailed: boolean;
  readonly dir: string;
  readonly filename?: string;
  readonly label?: string;
  readonly metadata: Readonly<Record<string, string>>;
}

/** --duration: a run bounded by time rather than by its number of prompts. */
export interface DurationBound {
  /** Nothing is sent after this long from t = 0; requests in flight then finish. */
  readonly ms: number;
  /** --num-prompts when typed: the run also stops after this many requests. Else the dataset is cycled. */
  readonly maxRequests?: number;
}

/** vLLM's --plot-timeline: the run's HTML report beside the result file, its timeline coloured by these. */
export interface TimelineSettings {
  readonly plot: boolean;
  /** Gaps below the first are green, below the second orange, the rest red (ms). */
  readonly itlThresholdsMs: readonly [number, number];
}

export interface BenchSettings {
  readonly target: ResolvedTarget;
  readonly apiKey: ResolvedKey;
  /** --header pairs, sent with every request. */
  readonly headers: Readonly<Record<string, string>>;
  /** --model: what the report and file names show; undefined = ask the server's /v1/models. */
  readonly model?: string;
  /** --served-model-name: what goes in the body's `model` (falls back to --model). */
  readonly servedModelName?: string;
  readonly tokenizer?: string;
  readonly dataset: DatasetSettings;
  readonly requestRate: number;
  readonly burstiness: number;
  readonly maxConcurrency?: number;
  readonly rampUp?: RampUp;
  readonly seed: number;
  readonly engine: EngineName;
  readonly payload: Omit<PayloadOptions, 'protocol' | 'model'>;
  readonly idleTimeoutMs: number;
  /** x-request-id of request i is `${requestIdPrefix}${i}`. */
  readonly requestIdPrefix: string;
  /** Stop at the first failure and print the whole answer. */
  readonly smoke: boolean;
  readonly percentileMetrics: readonly PercentileMetric[];
  readonly metricPercentiles: readonly number[];
  readonly goodput?: GoodputSlos;
  readonly save: SaveSettings;
  /** Where records stream to; null = not written. undefined = next to the result file. */
  readonly recordsFile?: string | null;
  /** A tokenmeter gateway's records file, to show its timings beside ours. */
  readonly gatewayRecords?: string;
  /** --span-receiver-port: the run's own span receiver, joining the server's spans into the records. */
  readonly spanReceiver?: SpanReceiverSettings;
  readonly progress: boolean;
  readonly duration?: DurationBound;
  /** --threshold: held against the run's figures; one that is not kept exits 99 (EXIT_THRESHOLD_FAILED). */
  readonly thresholds: readonly Threshold[];
  /** The default success floor (fewer than 90% successes fail the run); false with --no-success-floor. */
  readonly successFloor: boolean;
  /** Prices, --estimate and the budget limits (docs/cost.md). */
  readonly cost: CostSettings;
  /** --otlp-endpoint or the OTEL_* environment: where each request's client span goes; null = not exported. */
  readonly spanExport: OtlpExportSettings | null;
  /** The GenAI semantic conventions version of those spans (OTEL_SEMCONV_STABILITY_OPT_IN). */
  readonly genAiSemconv: GenAiSemconvVersion;
  /** --shard / --shard-count: send only this slice of the run (loadgen/shards). */
  readonly shard?: ShardSpec;
  /** --start-at / --start-delay (or a --workers parent): t = 0 at a shared instant instead of at once. */
  readonly start?: StartInstant;
  /** --server-metrics-url and its interval: the server's own /metrics read through the run; null with
   *  --no-server-metrics, undefined where nothing asked for them (the demo). */
  readonly serverMetrics?: ServerMetricsSettings | null;
  /** --gpu-metrics-url, --nvidia-smi: the GPUs' power, energy, utilisation and memory through the run
   *  (loadgen/gpu-metrics/); null with --no-gpu-metrics, undefined where nothing asked for them (the demo). */
  readonly gpuMetrics?: GpuMetricsSettings | null;
  /** --plot-timeline, --timeline-itl-thresholds (vLLM's): the timeline's colours, and whether to write it. */
  readonly timeline?: TimelineSettings;
  /** --stop-on-saturation, --max-error-rate: stop once the run's answer is known (loadgen/early-stop/). */
  readonly earlyStop?: EarlyStopSettings;
  /** --num-warmups: copies of the first request sent before the run, not recorded (loadgen/bench/warm-up.ts). */
  readonly warmups?: number;
  /** --probe-request-rate: one-token probes per second beside the run, reported apart (probe-requests.ts). */
  readonly probeRequestRate?: number;
  /** --ready-check-timeout-sec: retry the first request until it succeeds, at most this long; 0 = no check. */
  readonly readyCheckTimeoutS?: number;
  /** --lora-modules: each request's model is one of these adapters. */
  readonly lora?: { readonly modules: readonly string[]; readonly assignment: LoraAssignment };
  /** --insecure: the server's TLS certificate is not verified. */
  readonly insecure?: boolean;
  /** --append-result: the result JSON is appended to its file rather than replacing it. */
  readonly appendResult?: boolean;
  /** --multi-turn: conversations replayed as sessions (loadgen/engine/session-engine.ts). */
  readonly sessions?: SessionSettings;
  /** --dataset-name agentic: how the trace's sessions start, and in which protocol (loadgen/agent/). */
  readonly agent?: AgentSettings;
  /** --request-cancellation-rate / -delay: requests cancelled on purpose (loadgen/cancellation/). */
  readonly cancellation?: CancellationSettings;
}

export interface SessionSettings {
  /** --max-active-conversations: sessions in flight at once; undefined = no cap. */
  readonly maxActive?: number;
  /** --think-time-ms: between a turn's end and the next turn. */
  readonly thinkTime: ThinkTime;
}
