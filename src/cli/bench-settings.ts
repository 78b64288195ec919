// Flags (merged with --config) -> BenchSettings, with every check that can fail done here, before anything is
// sent: backend/endpoint mismatch, empty or unset key, bad --extra-body, unknown metric names, thresholds that
// cannot be read and --duration combinations that cannot be honoured.

import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { RampUp } from '../../loadgen/arrivals.js';
import { resolveApiKey } from '../../loadgen/bench/api-key.js';
import {
  checkDatasetPath,
  DATASET_NAMES,
  type DatasetName,
  datasetHasSchedule,
} from '../../loadgen/bench/load-dataset.js';
import type {
  BenchSettings,
  DurationBound,
  EngineName,
  SessionSettings,
  SpanReceiverSettings,
} from '../../loadgen/bench/settings.js';
import { type ResolvedTarget, resolveTarget } from '../../loadgen/bench/target-url.js';
import type { CancellationSettings } from '../../loadgen/cancellation/cancellation-plan.js';
import type { ThinkTime } from '../../loadgen/engine/session-engine.js';
import {
  type GoodputSlos,
  parseGoodput,
  parseMetricPercentiles,
  parsePercentileMetrics,
} from '../../loadgen/metrics/metric-options.js';
import { parseMetadataPairs } from '../../loadgen/report/result-json.js';
import { parseThreshold, type Threshold } from '../../loadgen/thresholds/threshold.js';
import { DEFAULT_SPAN_WAIT_MS } from '../gateway/config/config.js';
import { BACKEND_SPECS, backendProtocol, defaultEndpoint } from '../protocols/backends.js';
import { type ProtocolName, protocolByName } from '../protocols/index.js';
import { isJsonObject } from '../shared/json-object.js';
import {
  absentValues,
  type OptionSpec,
  type ParsedCommandLine,
  parseTimeMs,
  withConfigFile,
} from '../shared/option-schema.js';
import { UsageError } from '../shared/user-facing-error.js';
import { genAiSemconvVersion } from '../tracing/genai-semconv.js';
import { resolveOtlpExport } from '../tracing/otlp-settings.js';
import { agentSettingsOf } from './agent-options.js';
import { costSettingsFrom } from './bench-cost-settings.js';
import { BENCH_OPTIONS, type BenchValues } from './bench-options.js';
import {
  earlyStopSettingsFrom,
  gpuMetricsSettingsFrom,
  serverMetricsSettingsFrom,
} from './server-metrics-settings.js';
import { shardSettings } from './shard-settings.js';
import { type TimedTraceParts, timedTraceParts } from './timed-trace-options.js';
import { type VllmServeParts, vllmServeParts } from './vllm-serve-settings.js';

export const SMOKE_PROMPTS = 5;

/** --span-receiver-port and its companions; the host and wait alone start nothing. */
function spanReceiverOf(o: BenchValues): { spanReceiver?: SpanReceiverSettings } {
  const port = o['span-receiver-port'];
  if (port === undefined) {
    if (o['span-receiver-wait-ms'] !== undefined)
      throw new UsageError(
        '--span-receiver-wait-ms needs --span-receiver-port: it is the wait of that receiver',
      );
    return {};
  }
  return {
    spanReceiver: {
      host: o['span-receiver-host'],
      port,
      waitMs: o['span-receiver-wait-ms'] ?? DEFAULT_SPAN_WAIT_MS,
    },
  };
}

/** vLLM takes `--goodput ttft:200 tpot:50` and `--metadata a=1 b=2` (several values after one flag); our
 *  parser sees the later values as positionals, so they are put back where they belong. */
function sortPositionals(positionals: readonly string[]): { goodput: string[]; metadata: string[] } {
  const goodput: string[] = [];
  const metadata: string[] = [];
  for (const item of positionals) {
    if (/^(ttft|tpot|e2el):/i.test(item)) goodput.push(item);
    else if (/^[^=\s]+=/.test(item)) metadata.push(item);
    else
      throw new UsageError(
        `unexpected argument '${item}' (values of --goodput look like ttft:500, of --metadata like key=value)`,
      );
  }
  return { goodput, metadata };
}

/**
 * --per-chunk-usage: vLLM's continuous_usage_stats, which it honours only with include_usage and only on the OpenAI
 * chat and completions APIs (the other protocols have no such field).
 */
function perChunkUsageOf(o: BenchValues, protocol: ProtocolName): boolean {
  if (!o['per-chunk-usage']) return false;
  if (o['no-stream-usage'])
    throw new UsageError(
      '--per-chunk-usage needs the usage chunk that --no-stream-usage turns off (vLLM sends usage on every chunk only with include_usage): drop one of them',
    );
  if (!protocolByName(protocol).usageOnRequest)
    throw new UsageError(
      `--per-chunk-usage asks for stream_options.continuous_usage_stats, which only the OpenAI chat and completions APIs have (this backend speaks ${protocol})`,
    );
  return true;
}

function parseHeaders(items: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const item of items) {
    const at = item.indexOf('=');
    const colon = item.indexOf(':');
    const split = at > 0 ? at : colon;
    if (split <= 0) throw new UsageError(`--header '${item}' should be NAME=VALUE`);
    headers[item.slice(0, split).trim().toLowerCase()] = item.slice(split + 1).trim();
  }
  return headers;
}

function parseExtraBody(text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  try {
    const value: unknown = JSON.parse(text);
    if (isJsonObject(value)) return { ...value };
  } catch {
    // reported below
  }
  throw new UsageError(`--extra-body must be a JSON object, e.g. '{"top_p": 0.9}' (got ${text})`);
}

function rampUp(o: BenchValues): RampUp | undefined {
  const strategy = o['ramp-up-strategy'];
  const startRps = o['ramp-up-start-rps'];
  const endRps = o['ramp-up-end-rps'];
  if (strategy === undefined) {
    if (startRps !== undefined || endRps !== undefined)
      throw new UsageError('--ramp-up-start-rps/--ramp-up-end-rps need --ramp-up-strategy');
    return undefined;
  }
  if (startRps === undefined || endRps === undefined)
    throw new UsageError('--ramp-up-strategy needs --ramp-up-start-rps and --ramp-up-end-rps');
  return { strategy, startRps, endRps };
}

/** --request-cancellation-rate and its delay; refused where the engine cannot cancel one request. */
function cancellationOf(o: BenchValues, engine: EngineName): { cancellation?: CancellationSettings } {
  const ratePercent = o['request-cancellation-rate'];
  const delayS = o['request-cancellation-delay'];
  if (ratePercent === undefined) {
    if (delayS !== undefined)
      throw new UsageError(
        '--request-cancellation-delay needs --request-cancellation-rate (the percent to cancel)',
      );
    return {};
  }
  if (engine === 'closed-loop')
    throw new UsageError(
      '--request-cancellation-rate does not work with --engine closed-loop: autocannon gives no way to cancel one request in flight. Use the open-loop engine (add --max-concurrency N for a fixed concurrency)',
    );
  return { cancellation: { ratePercent, delayMs: (delayS ?? 0) * 1000 } };
}

/** --think-time-ms: `500` (fixed) or `200-800` (uniform). */
function thinkTimeOf(text: string | undefined): ThinkTime {
  if (text === undefined) return { minMs: 0, maxMs: 0 };
  const match = /^(\d+(?:\.\d+)?)(?:-(\d+(?:\.\d+)?))?$/.exec(text.trim());
  const minMs = Number(match?.[1]);
  const maxMs = match?.[2] === undefined ? minMs : Number(match[2]);
  if (match === null || !(maxMs >= minMs))
    throw new UsageError(
      `--think-time-ms takes MS or MIN-MAX in milliseconds, e.g. 500 or 200-800 (got ${text})`,
    );
  return { minMs, maxMs };
}

/** --multi-turn and its flags, refused where a session cannot be replayed as one. */
function sessionSettings(
  o: BenchValues,
  run: {
    datasetName: DatasetName;
    engine: EngineName;
    sharded: boolean;
    duration: boolean;
    protocol: ProtocolName;
  },
): SessionSettings | undefined {
  const dependents = (['max-turns', 'max-active-conversations', 'think-time-ms'] as const).filter(
    (name) => o[name] !== undefined,
  );
  if (!o['multi-turn']) {
    if (dependents.length > 0) throw new UsageError(`--${dependents[0]} needs --multi-turn`);
    return undefined;
  }
  const refuse = (why: string): never => {
    throw new UsageError(`--multi-turn ${why}`);
  };
  if (run.datasetName !== 'sharegpt')
    refuse(`replays ShareGPT conversations: use --dataset-name sharegpt (got ${run.datasetName})`);
  if (run.engine !== 'open-loop')
    refuse('runs sessions on the open-loop schedule: drop --engine closed-loop');
  if (run.sharded) refuse('cannot be split across shards or workers yet: run it in one process');
  if (run.duration) refuse('is bounded by its sessions, not by time: drop --duration');
  if (protocolByName(run.protocol).conversationField === null)
    refuse(
      'needs a backend whose bodies carry a conversation (openai-chat, anthropic-messages, openai-responses)',
    );
  const maxActive = o['max-active-conversations'];
  return {
    ...(maxActive === undefined ? {} : { maxActive }),
    thinkTime: thinkTimeOf(o['think-time-ms']),
  };
}

/** --duration, refused where it cannot be honoured: a run bounded by time must know how many requests to ready
 *  (from the rate, or from --num-prompts) and send them on a schedule the open loop owns. */
function durationBound(
  o: BenchValues,
  run: { smoke: boolean; engine: EngineName; requestRate: number; ramp: boolean; replay: boolean },
): DurationBound | undefined {
  const text = o['duration'];
  if (text === undefined) return undefined;
  // Its spec's check refused a time that is none, or not above 0.
  const ms = parseTimeMs(text, 's') ?? 0;
  if (run.smoke) throw new UsageError('--smoke sends 5 prompts: leave out --duration');
  if (run.engine === 'closed-loop')
    throw new UsageError(
      '--duration needs the open-loop engine; for a fixed concurrency use --request-rate inf --max-concurrency N',
    );
  if (run.ramp)
    throw new UsageError('--duration and --ramp-up-strategy do not mix: a ramp spans a request count');
  const maxRequests = o['num-prompts'];
  if (maxRequests === undefined && !Number.isFinite(run.requestRate) && !run.replay)
    throw new UsageError(
      '--duration with --request-rate inf needs --num-prompts N, the most requests to send (the rate gives no count)',
    );
  return { ms, ...(maxRequests === undefined ? {} : { maxRequests }) };
}

function thresholdsFrom(o: BenchValues, goodput: GoodputSlos | undefined): Threshold[] {
  const thresholds = o['threshold'].map(parseThreshold);
  const onGoodput = thresholds.find((t) => t.metric.name === 'request_goodput');
  if (onGoodput !== undefined && goodput === undefined)
    throw new UsageError(
      `--threshold '${onGoodput.text}' needs --goodput SLOs (e.g. --goodput ttft:500): without them there is no goodput`,
    );
  return thresholds;
}

/** The flags that take a number and have no default: a dataset's lengths, left to the dataset when not given. */
type NumberFlag = {
  [K in keyof BenchValues]: BenchValues[K] extends number | undefined ? K : never;
}[keyof BenchValues];

/** Settings from bench's flags; the flags not given take their specs' absent values (defaults, off, empty). */
export function benchSettingsFrom(
  given: Partial<BenchValues>,
  positionals: readonly string[],
  env: NodeJS.ProcessEnv,
  runId: string,
): BenchSettings {
  const o: BenchValues = { ...absentValues(BENCH_OPTIONS), ...given };
  const extra = sortPositionals(positionals);
  const backend = o['backend'];
  const endpoint = o['endpoint'];
  const baseUrl = o['base-url'];
  const target = resolveTarget({
    ...(backend === undefined ? {} : { backend }),
    ...(baseUrl === undefined ? {} : { baseUrl }),
    ...(endpoint === undefined ? {} : { endpoint }),
    host: o['host'],
    port: o['port'],
  });
  const apiKeyText = o['api-key'];
  const apiKeyEnv = o['api-key-env'];
  const apiKey = resolveApiKey(
    {
      ...(apiKeyText === undefined ? {} : { apiKey: apiKeyText }),
      ...(apiKeyEnv === undefined ? {} : { apiKeyEnv }),
      sendsNothing: o['estimate'],
      fallbackEnv: BACKEND_SPECS[target.backend].keyEnv,
    },
    env,
  );
  const smoke = o['smoke'];
  const fullRunPrompts = o['num-prompts'] ?? 1000;
  const serverMetrics = serverMetricsSettingsFrom(o);
  const numPrompts = Math.min(fullRunPrompts, smoke ? SMOKE_PROMPTS : Number.POSITIVE_INFINITY);
  const datasetPath = o['dataset-path'] ?? o['dataset'];
  const vllm = vllmPartsOf(o, target);
  // vllmPartsOf refused vLLM's datasets that tokenmeter does not have: what is left is one of ours.
  const datasetName = DATASET_NAMES.find((name) => name === (o['dataset-name'] ?? 'sharegpt')) ?? 'sharegpt';
  checkDatasetPath({ name: datasetName, ...(datasetPath === undefined ? {} : { path: datasetPath }) });
  // vLLM's --input-len / --output-len stand for the dataset flags and win over them.
  const aliased: Record<string, number | undefined> = {
    'random-input-len': vllm.inputLen,
    'random-output-len': vllm.outputLen,
    'sharegpt-output-len': vllm.outputLen,
    'custom-output-len': vllm.outputLen,
    'prefix-repetition-output-len': vllm.outputLen,
  };
  const optional = (name: NumberFlag, key: string): Record<string, number> => {
    const v = aliased[name] ?? o[name];
    return v === undefined ? {} : { [key]: v };
  };
  const goodputPairs = [...o['goodput'], ...extra.goodput];
  const goodput = goodputPairs.length > 0 ? parseGoodput(goodputPairs) : undefined;
  const maxConcurrency = o['max-concurrency'];
  const ramp = rampUp(o);
  const model = o['model'];
  const servedModelName = o['served-model-name'];
  const tokenizer = o['tokenizer'];
  const label = o['label'];
  const filename = o['result-filename'];
  const recordsFile = o['records-file'];
  const gatewayRecords = o['gateway-records'];
  const engine = o['engine'];
  // autocannon connects with rejectUnauthorized: false whatever it is told, so the closed loop could not verify an
  // https target's certificate: it runs against https only when the user chose that with --insecure.
  if (engine === 'closed-loop' && target.origin.startsWith('https:') && !vllm.insecure)
    throw new UsageError(
      "--engine closed-loop cannot verify an https server's TLS certificate (autocannon never does): use the open-loop engine, or add --insecure to run unverified",
    );
  const isChat = target.protocol === 'openai-chat';
  const perChunkUsage = perChunkUsageOf(o, target.protocol);
  const dir = o['result-dir'];
  const requestRate = o['request-rate'];
  const sharding = shardSettings(o, env, engine);
  const timedTrace = timedTracePartsOf(o, target.protocol === 'openai-completions');
  const sharded = sharding.settings.shard !== undefined || o['workers'] > 1;
  // Each process would run its own probe loop, and `merge` reports no probes.
  if (sharded && vllm.probeRequestRate > 0)
    throw new UsageError(
      '--probe-request-rate cannot be split across shards or workers: run it in one process',
    );
  const sessions = sessionSettings(o, {
    datasetName,
    engine,
    sharded,
    duration: o['duration'] !== undefined,
    protocol: target.protocol,
  });
  const agent = agentSettingsOf(o, {
    datasetName,
    requestRate,
    sharded,
    duration: o['duration'] !== undefined,
    multiTurn: sessions !== undefined,
    cancellation: o['request-cancellation-rate'] !== undefined,
  });
  const duration = durationBound(o, {
    smoke,
    engine,
    requestRate,
    ramp: ramp !== undefined,
    replay: datasetHasSchedule(datasetName) && timedTrace.settings?.selfTimed !== false,
  });
  return {
    target,
    apiKey,
    headers: parseHeaders(o['header']),
    ...(model === undefined ? {} : { model }),
    ...(servedModelName === undefined ? {} : { servedModelName }),
    ...(tokenizer === undefined ? {} : { tokenizer }),
    dataset: {
      name: datasetName,
      ...(datasetPath === undefined ? {} : { path: datasetPath }),
      numPrompts,
      seed: o['seed'],
      replaySpeed: o['replay-speed'],
      endpointFamily: backendProtocol(target.backend).family,
      ...optional('sharegpt-output-len', 'sharegptOutputLen'),
      ...optional('random-input-len', 'randomInputLen'),
      ...optional('random-output-len', 'randomOutputLen'),
      ...randomRangeRatios(o['random-range-ratio']),
      ...optional('random-prefix-len', 'randomPrefixLen'),
      ...optional('prefix-repetition-prefix-len', 'prefixRepetitionPrefixLen'),
      ...optional('prefix-repetition-suffix-len', 'prefixRepetitionSuffixLen'),
      ...optional('prefix-repetition-num-prefixes', 'prefixRepetitionNumPrefixes'),
      ...optional('prefix-repetition-output-len', 'prefixRepetitionOutputLen'),
      ...optional('custom-output-len', 'customOutputLen'),
      ...optional('shared-system-prompt-length', 'sharedSystemPromptTokens'),
      ...optional('trace-block-tokens', 'traceBlockTokens'),
      ...(sessions === undefined ? {} : { sessionTurns: o['max-turns'] ?? Number.POSITIVE_INFINITY }),
      ...(vllm.disableShuffle ? { disableShuffle: true } : {}),
      ...(vllm.noOversample ? { noOversample: true } : {}),
      ...(timedTrace.settings === undefined ? {} : { timedTrace: timedTrace.settings }),
    },
    requestRate,
    burstiness: o['burstiness'],
    ...(maxConcurrency === undefined ? {} : { maxConcurrency }),
    ...(ramp === undefined ? {} : { rampUp: ramp }),
    seed: o['seed'],
    engine,
    payload: {
      chatContent: o['chat-content'],
      maxTokensField: o['max-tokens-field'] ?? (isChat ? 'max_completion_tokens' : 'max_tokens'),
      ignoreEos: o['ignore-eos'] || vllm.forceIgnoreEos,
      includeUsage: !o['no-stream-usage'],
      ...(perChunkUsage ? { continuousUsage: true } : {}),
      ...(vllm.temperature === undefined ? {} : { temperature: vllm.temperature }),
      // vLLM's order: the sampling flags, then --extra-body over them.
      extraBody: { ...vllm.sampling, ...parseExtraBody(o['extra-body']) },
    },
    idleTimeoutMs: o['idle-timeout'] * 1000,
    requestIdPrefix: o['request-id-prefix'] ?? `tokenmeter-${runId}-`,
    smoke,
    percentileMetrics: parsePercentileMetrics(o['percentile-metrics']),
    metricPercentiles: parseMetricPercentiles(o['metric-percentiles']),
    ...(goodput === undefined ? {} : { goodput }),
    save: {
      result: o['save-result'] || o['save-detailed'] || o['append-result'],
      detailed: o['save-detailed'],
      dir,
      ...(filename === undefined ? {} : { filename }),
      ...(label === undefined ? {} : { label }),
      metadata: { ...parseMetadataPairs([...o['metadata'], ...extra.metadata]), ...sharding.metadata },
    },
    ...(o['no-records']
      ? { recordsFile: null }
      : recordsFile === undefined
        ? {}
        : { recordsFile: join(recordsFile) }),
    ...(gatewayRecords === undefined ? {} : { gatewayRecords }),
    ...spanReceiverOf(o),
    progress: !o['disable-tqdm'],
    ...(duration === undefined ? {} : { duration }),
    thresholds: thresholdsFrom(o, goodput),
    successFloor: !o['no-success-floor'],
    cost: costSettingsFrom(o, { engine, smoke, fullRunPrompts }),
    spanExport: resolveOtlpExport(
      {
        endpoint: o['otlp-endpoint'],
        endpointKind: 'base',
        envEnables: true,
        defaultServiceName: 'tokenmeter-bench',
        source: '--otlp-endpoint',
      },
      env,
    ),
    genAiSemconv: genAiSemconvVersion(env),
    ...sharding.settings,
    ...(sessions === undefined ? {} : { sessions }),
    ...(agent === undefined ? {} : { agent }),
    ...cancellationOf(o, engine),
    warmups: vllm.warmups,
    ...(vllm.probeRequestRate > 0 ? { probeRequestRate: vllm.probeRequestRate } : {}),
    readyCheckTimeoutS: vllm.readyCheckTimeoutS,
    ...(vllm.lora === undefined ? {} : { lora: vllm.lora }),
    ...(vllm.insecure ? { insecure: true } : {}),
    ...(vllm.appendResult ? { appendResult: true } : {}),
    ...(vllm.timeline === undefined ? {} : { timeline: vllm.timeline }),
    serverMetrics,
    gpuMetrics: gpuMetricsSettingsFrom(o),
    earlyStop: earlyStopSettingsFrom(o, o['server-metrics-interval'] * 1000),
  };
}

/** vllm-serve-settings.ts's part of the settings, from the merged flags and the target they resolved to. */
function vllmPartsOf(o: BenchValues, target: ResolvedTarget): VllmServeParts {
  return vllmServeParts(o, {
    backend: target.backend,
    backendNamed: o['backend'] !== undefined,
    endpoint: o['endpoint'] ?? defaultEndpoint(target.backend),
    endpointNamed: o['endpoint'] !== undefined,
    datasetName: o['dataset-name'] ?? 'sharegpt',
    datasetNamed: o['dataset-name'] !== undefined,
    completions: target.protocol === 'openai-completions',
  });
}

/** timed-trace-options.ts's part of the settings, from the merged flags. */
function timedTracePartsOf(o: BenchValues, completions: boolean): TimedTraceParts {
  return timedTraceParts(o, {
    datasetName: o['dataset-name'] ?? 'sharegpt',
    completions,
    requestRate: o['request-rate'] !== undefined && Number.isFinite(o['request-rate']),
    rampUp: o['ramp-up-strategy'] !== undefined,
  });
}

/** `bench` and `sweep`'s command line (flags over --config) as settings, with notes about flags that change
 *  nothing, for the load generator to say after what it says about the target. */
export interface CommandLineSettings {
  readonly settings: BenchSettings;
  readonly flagNotes: string[];
  /** The flags with --config's values filled in (what `bench --workers` hands its workers). */
  readonly options: BenchValues;
}

export function newRunId(): string {
  return randomBytes(4).toString('hex');
}

export function settingsFromCommandLine(
  commandLine: ParsedCommandLine,
  specs: readonly OptionSpec[],
  env: NodeJS.ProcessEnv = process.env,
): CommandLineSettings {
  // bench's own specs, or sweep's (bench's spec objects, some left out, plus its own): every value was converted
  // by one of bench's specs, so the merged values are bench's; those left out take their absent values.
  const options: BenchValues = {
    ...absentValues(BENCH_OPTIONS),
    ...(withConfigFile(commandLine, specs) as Partial<BenchValues>),
  };
  const settings = benchSettingsFrom(options, commandLine.positionals, env, newRunId());
  const flagNotes = [
    ...(options['trust-remote-code']
      ? [
          '--trust-remote-code is accepted and changes nothing (tokenizers load from tokenizer.json; no code runs)',
        ]
      : []),
    ...vllmPartsOf(options, settings.target).notes,
    ...timedTracePartsOf(options, settings.target.protocol === 'openai-completions').notes,
  ];
  return { settings, flagNotes, options };
}

/**
 * --random-range-ratio: one ratio for input and output lengths, or vLLM's JSON form with one for each
 * (`{"input": 0.3, "output": 0.5}`; a key left out is 0, vLLM's default).
 */
function randomRangeRatios(text: string | undefined): {
  randomRangeRatio?: number;
  randomOutputRangeRatio?: number;
} {
  if (text === undefined) return {};
  const refused = (): UsageError =>
    new UsageError(
      `--random-range-ratio must be a number at least 0 and below 1, or JSON such as '{"input": 0.3, "output": 0.5}' (got ${text})`,
    );
  const ratio = (value: unknown): number => {
    if (typeof value !== 'number' || !(value >= 0 && value < 1)) throw refused();
    return value;
  };
  if (!text.trim().startsWith('{')) {
    const value = Number(text);
    if (text.trim() === '') throw refused();
    return { randomRangeRatio: ratio(value) };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw refused();
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw refused();
  const { input = 0, output = 0, ...other } = parsed as Record<string, unknown>;
  if (Object.keys(other).length > 0) throw refused();
  return { randomRangeRatio: ratio(input), randomOutputRangeRatio: ratio(output) };
}
