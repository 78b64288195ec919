// The simulator's settings: one typed object with documented defaults, built from (lowest to highest priority)
// the defaults below, an optional JSON file, and command-line flags. Validated once at start.
import { readFileSync } from 'node:fs';
import { isJsonObject, parseJsonText } from '../shared/json-object.js';
import { fileErrorReason } from '../shared/regular-file.js';
import { UserFacingError } from '../shared/user-facing-error.js';
import { kvCapacity } from './kv-capacity.js';

export interface TimingModel {
  /** Fixed part of the time to first token, ms (scheduling + a minimal prefill). */
  readonly ttftMs: number;
  /** Prefill cost per prompt token, ms. */
  readonly prefillMsPerToken: number;
  /** Time between two generated tokens for a lone sequence, ms. */
  readonly itlMs: number;
  /** Each gap is multiplied by (1 + jitter * u), u uniform in [-1, 1]. 0 = exact timing. */
  readonly jitter: number;
  /** Tokens carried by one SSE chunk: 1 like vLLM; more imitates hosted gateways that batch tokens. */
  readonly tokensPerChunk: number;
  /**
   * Speculative decoding, as vLLM's `num_speculative_tokens`: each decode step proposes this many draft tokens and
   * writes one chunk of 1 + the accepted ones. 0 = off (one token per step).
   */
  readonly speculativeTokens: number;
  /** With speculativeTokens: the chance that each draft token is accepted, given the ones before it were. */
  readonly specAcceptanceRate: number;
  /** At most this many sequences run (prefill or decode) at once; the rest wait in a queue. */
  readonly maxNumSeqs: number;
  /** Every running sequence beyond the first slows each step by this fraction (batching cost). */
  readonly batchSlowdown: number;
  /** Median length of an answer that ends on its own (end of sequence), in tokens. */
  readonly eosMedianTokens: number;
  /** Longest context (prompt + output) accepted, like vLLM's --max-model-len. */
  readonly maxModelLen: number;
  /** When the role-only first delta is written: with the first token (like vLLM) or as soon as headers go. */
  readonly roleChunk: 'with-first-token' | 'immediately';
}

export interface FaultSwitches {
  /** Fraction of requests answered with `errorStatus` instead of a completion. */
  readonly errorRate: number;
  readonly errorStatus: number;
  /** Fraction of requests answered 429 with a Retry-After header of `retryAfterS` seconds. */
  readonly rateLimitRate: number;
  readonly retryAfterS: number;
  /** Cut the connection after this many content tokens (0 = never). */
  readonly cutAfterTokens: number;
  /** Pause for `stallMs` once, after this many content tokens (0 = never). */
  readonly stallAfterTokens: number;
  readonly stallMs: number;
  /** Fraction of requests answered HTTP 200 with an error object instead of choices. */
  readonly errorBodyRate: number;
}

/** GPU memory as vLLM divides it: what is left after the weights holds the KV cache (kv-capacity.ts). */
export interface KvSettings {
  /** KV cache capacity in tokens, set directly (rounded down to whole 16-token blocks). 0 = not set. */
  readonly kvCacheTokens: number;
  /** vLLM's --gpu-memory-utilization: the share of GPU memory vLLM may use. 0 = no memory model. */
  readonly gpuMemoryUtilization: number;
  /** Memory of the simulated GPU, GiB. */
  readonly gpuMemoryGiB: number;
  /** Weights plus activations and runtime overhead, GiB: what is not left for the KV cache. */
  readonly modelWeightsGiB: number;
  /** KV bytes of one token: 2 (K and V) x layers x KV heads x head size x bytes per value. */
  readonly kvBytesPerToken: number;
  /** vLLM's --enable-prefix-caching: full prompt blocks are cached by prefix hash and reused. */
  readonly enablePrefixCaching: boolean;
}

/** A reasoning model: each answer starts with a reasoning part, streamed before the answer text. */
export interface ReasoningSettings {
  /** Reasoning tokens before the answer (0 = not a reasoning model). Per request: header x-sim-reasoning-tokens. */
  readonly tokens: number;
  /** The chat delta field carrying reasoning: `reasoning` (vLLM since Nov 2025) or `reasoning_content` (DeepSeek, vLLM before). */
  readonly chatField: 'reasoning' | 'reasoning_content';
}

/**
 * Tool calls (start-generation.ts): how often an answer calls one of the request's tools, and how many turns
 * may.
 */
export interface ToolSettings {
  /** With tool_choice auto (or none given), the chance that an answer calls a tool. */
  readonly callRate: number;
  /** No answer calls a tool once the conversation holds this many tool-calling turns, so every agent loop ends. */
  readonly maxToolTurns: number;
}

export interface SimConfig {
  readonly host: string;
  readonly port: number;
  readonly seed: number;
  readonly servedModelNames: readonly string[];
  /** When set, requests must carry `Authorization: Bearer <apiKey>`. */
  readonly apiKey: string | undefined;
  /** Serve only the chat endpoint (like some hosted gateways): /v1/completions answers 404. */
  readonly chatOnly: boolean;
  /** JSONL file receiving one ground-truth record per finished request. */
  readonly truthLog: string | undefined;
  /** How many finished requests' ground truth stay queryable at /sim/truth/:id. */
  readonly truthCapacity: number;
  /** vLLM's --otlp-traces-endpoint: the OTLP/HTTP traces URL each request's `llm_request` span goes to. */
  readonly otlpTracesEndpoint: string | undefined;
  readonly timing: TimingModel;
  readonly kv: KvSettings;
  readonly reasoning: ReasoningSettings;
  readonly tools: ToolSettings;
  readonly faults: FaultSwitches;
  /**
   * Where the API is served: `/api` serves `/api/v1/...` (a hosted endpoint's base URL `.../api/v1`), '' the
   * root. The simulator's own endpoints (/health, /metrics, /sim/...) stay at the root.
   */
  readonly pathPrefix: string;
}

/** Defaults shaped like a 7B model served by vLLM on one consumer GPU (RTX 4090 class). */
export const DEFAULT_TIMING: TimingModel = {
  ttftMs: 30,
  prefillMsPerToken: 0.15,
  itlMs: 15,
  jitter: 0.1,
  tokensPerChunk: 1,
  speculativeTokens: 0,
  specAcceptanceRate: 0.7,
  maxNumSeqs: 32,
  batchSlowdown: 0.03,
  eosMedianTokens: 300,
  maxModelLen: 4096,
  roleChunk: 'with-first-token',
};

/** No memory model: the pool holds a full context for every seat, so memory never binds (kv-capacity.ts). */
export const DEFAULT_KV: KvSettings = {
  kvCacheTokens: 0,
  gpuMemoryUtilization: 0,
  gpuMemoryGiB: 24,
  modelWeightsGiB: 15,
  kvBytesPerToken: 131_072,
  enablePrefixCaching: false,
};

export const NO_REASONING: ReasoningSettings = { tokens: 0, chatField: 'reasoning' };

export const DEFAULT_TOOLS: ToolSettings = { callRate: 0.5, maxToolTurns: 3 };

export const NO_FAULTS: FaultSwitches = {
  errorRate: 0,
  errorStatus: 500,
  rateLimitRate: 0,
  retryAfterS: 1,
  cutAfterTokens: 0,
  stallAfterTokens: 0,
  stallMs: 0,
  errorBodyRate: 0,
};

export const DEFAULT_MODEL_NAME = 'tokenmeter/sim-7b';

export const DEFAULT_SIM_CONFIG: SimConfig = {
  host: '127.0.0.1',
  port: 8000,
  seed: 0,
  servedModelNames: [DEFAULT_MODEL_NAME],
  apiKey: undefined,
  chatOnly: false,
  truthLog: undefined,
  truthCapacity: 10_000,
  otlpTracesEndpoint: undefined,
  timing: DEFAULT_TIMING,
  kv: DEFAULT_KV,
  reasoning: NO_REASONING,
  tools: DEFAULT_TOOLS,
  faults: NO_FAULTS,
  pathPrefix: '',
};

export type DeepPartial<T> = { [K in keyof T]?: T[K] extends object ? DeepPartial<T[K]> : T[K] };
export type SimOptions = DeepPartial<Omit<SimConfig, 'servedModelNames'>> & {
  servedModelNames?: readonly string[];
};

/** Fills every field from `base`, rejecting names that do not exist so typos in a config file are caught. */
function mergeSection<T extends object>(base: T, override: unknown, where: string): T {
  if (override === undefined) return base;
  if (!isJsonObject(override)) throw new UserFacingError(`${where} must be an object`);
  const merged: Record<string, unknown> = { ...(base as object) };
  for (const [key, value] of Object.entries(override)) {
    if (!(key in base)) {
      throw new UserFacingError(
        `${where}.${key} is not a known setting (known: ${Object.keys(base).join(', ')})`,
      );
    }
    if (value === undefined) continue;
    const expected = typeof (base as unknown as Record<string, unknown>)[key];
    if (expected !== 'undefined' && typeof value !== expected) {
      throw new UserFacingError(`${where}.${key} must be a ${expected} (got ${JSON.stringify(value)})`);
    }
    merged[key] = value;
  }
  return merged as T;
}

export function resolveSimConfig(options: SimOptions = {}, base: SimConfig = DEFAULT_SIM_CONFIG): SimConfig {
  const { timing, kv, reasoning, tools, faults, servedModelNames, ...top } = options;
  const merged = mergeSection(base, top, 'config');
  const config: SimConfig = {
    ...merged,
    // `--path-prefix /api/` means /api.
    pathPrefix: merged.pathPrefix.replace(/\/+$/, ''),
    servedModelNames: servedModelNames ?? base.servedModelNames,
    timing: mergeSection(base.timing, timing, 'timing'),
    kv: mergeSection(base.kv, kv, 'kv'),
    reasoning: mergeSection(base.reasoning, reasoning, 'reasoning'),
    tools: mergeSection(base.tools, tools, 'tools'),
    faults: mergeSection(base.faults, faults, 'faults'),
  };
  validateSimConfig(config);
  return config;
}

function check(condition: boolean, message: string): void {
  if (!condition) throw new UserFacingError(message);
}

const fraction = (v: number) => v >= 0 && v <= 1;

export function validateSimConfig(config: SimConfig): void {
  const { timing: t, faults: f } = config;
  check(Number.isInteger(config.port) && config.port >= 0 && config.port <= 65535, 'port must be 0-65535');
  check(config.servedModelNames.length > 0, 'servedModelNames must name at least one model');
  check(t.ttftMs >= 0 && t.prefillMsPerToken >= 0 && t.itlMs >= 0, 'timing values must not be negative');
  check(fraction(t.jitter), 'timing.jitter must be between 0 and 1');
  check(
    Number.isInteger(t.tokensPerChunk) && t.tokensPerChunk >= 1,
    'timing.tokensPerChunk must be an integer >= 1',
  );
  check(
    Number.isInteger(t.speculativeTokens) && t.speculativeTokens >= 0,
    'timing.speculativeTokens must be an integer >= 0',
  );
  check(fraction(t.specAcceptanceRate), 'timing.specAcceptanceRate must be between 0 and 1');
  // A speculative step writes its tokens as one chunk; grouping steps into chunks on top would hide that.
  check(
    t.speculativeTokens === 0 || t.tokensPerChunk === 1,
    'timing.speculativeTokens needs timing.tokensPerChunk 1 (each speculative step is one chunk)',
  );
  check(Number.isInteger(t.maxNumSeqs) && t.maxNumSeqs >= 1, 'timing.maxNumSeqs must be an integer >= 1');
  check(t.batchSlowdown >= 0, 'timing.batchSlowdown must not be negative');
  check(t.eosMedianTokens >= 1 && t.maxModelLen >= 16, 'timing.eosMedianTokens >= 1 and maxModelLen >= 16');
  check(t.roleChunk === 'with-first-token' || t.roleChunk === 'immediately', 'timing.roleChunk is invalid');
  validateKv(config.kv);
  const r = config.reasoning;
  check(Number.isInteger(r.tokens) && r.tokens >= 0, 'reasoning.tokens must be an integer >= 0');
  check(
    r.chatField === 'reasoning' || r.chatField === 'reasoning_content',
    'reasoning.chatField must be "reasoning" or "reasoning_content"',
  );
  check(fraction(config.tools.callRate), 'tools.callRate must be between 0 and 1');
  check(
    Number.isInteger(config.tools.maxToolTurns) && config.tools.maxToolTurns >= 0,
    'tools.maxToolTurns must be an integer >= 0',
  );
  check(
    config.pathPrefix === '' || /^(\/[A-Za-z0-9._~-]+)+$/.test(config.pathPrefix),
    `pathPrefix must be '' or a path such as /api, without a trailing slash (got ${JSON.stringify(config.pathPrefix)})`,
  );
  // vLLM refuses to start when one full-length sequence cannot fit in the KV cache; so does the simulator.
  kvCapacity(config);
  for (const key of ['errorRate', 'rateLimitRate', 'errorBodyRate'] as const) {
    check(fraction(f[key]), `faults.${key} must be between 0 and 1`);
  }
  check(
    Number.isInteger(f.errorStatus) && f.errorStatus >= 400 && f.errorStatus <= 599,
    'faults.errorStatus 400-599',
  );
  check(
    f.cutAfterTokens >= 0 && f.stallAfterTokens >= 0 && f.stallMs >= 0,
    'fault values must not be negative',
  );
}

function validateKv(kv: KvSettings): void {
  check(
    Number.isInteger(kv.kvCacheTokens) && kv.kvCacheTokens >= 0,
    'kv.kvCacheTokens must be an integer >= 0',
  );
  check(fraction(kv.gpuMemoryUtilization), 'kv.gpuMemoryUtilization must be between 0 and 1');
  check(kv.gpuMemoryGiB > 0 && kv.modelWeightsGiB >= 0, 'kv.gpuMemoryGiB > 0 and kv.modelWeightsGiB >= 0');
  check(kv.kvBytesPerToken > 0, 'kv.kvBytesPerToken must be > 0');
}

/** The 404's message for a model the simulator does not serve (as vLLM words it); undefined when it serves it. */
export function modelNotServed(config: SimConfig, model: string): string | undefined {
  if (config.servedModelNames.includes(model)) return undefined;
  return `The model \`${model}\` does not exist. Served models: ${config.servedModelNames.join(', ')}`;
}

/** Reads a JSON settings file shaped like `SimOptions` (see docs/simulator.md). */
export function readSimConfigFile(path: string): SimOptions {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UserFacingError(`cannot read simulator config ${path}: ${fileErrorReason(error)}`, {
      cause: error,
    });
  }
  try {
    const parsed: unknown = parseJsonText(text);
    if (!isJsonObject(parsed)) throw new Error('the top level must be an object');
    return parsed as SimOptions;
  } catch (error) {
    throw new UserFacingError(`simulator config ${path} is not valid JSON: ${(error as Error).message}`);
  }
}
