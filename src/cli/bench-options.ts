// The flags of `tokenmeter bench` (and, minus the rate, of `tokenmeter sweep`): vLLM's benchmark_serving.py
// flags under the same names and defaults, so pasted command lines work, then ours. Differences from vLLM are
// listed in docs/loadgen-reference.md.

import { DATASET_NAMES } from '../../loadgen/bench/load-dataset.js';
import { ENGINE_NAMES } from '../../loadgen/bench/settings.js';
import { ON_LIMIT_CHOICES } from '../../loadgen/cost/cost-settings.js';
import { DEFAULT_SPAN_WAIT_MS } from '../gateway/config/config.js';
import { BACKENDS } from '../protocols/backends.js';
import type { OptionSpec, OptionValues } from '../shared/option-schema.js';
import { parseTimeMs, TIME_FORMS } from '../shared/option-schema.js';
import { AGENT_OPTIONS } from './agent-options.js';
import { SERVER_METRICS_OPTIONS } from './server-metrics-options.js';
import { TIMED_TRACE_OPTIONS } from './timed-trace-options.js';
import { VLLM_ACCEPTED_ONLY_OPTIONS, VLLM_ONLY_DATASETS, VLLM_SERVE_OPTIONS } from './vllm-serve-options.js';

export const TARGET_OPTIONS = [
  {
    name: 'config',
    type: 'string',
    valueName: 'FILE',
    help: 'JSON file of settings (bench_config.json keys: base_url, api_key_env, model, ...); flags override it',
  },
  {
    name: 'backend',
    type: 'string',
    choices: BACKENDS,
    help: 'openai-chat (/v1/chat/completions), openai/vllm (completions body, /v1/completions), anthropic-messages (/v1/messages, x-api-key) or openai-responses (/v1/responses); default: from --endpoint, else openai-chat',
  },
  {
    name: 'base-url',
    type: 'string',
    valueName: 'URL',
    help: 'Server base URL, with or without /v1 (never doubled)',
  },
  {
    name: 'host',
    type: 'string',
    valueName: 'HOST',
    default: '127.0.0.1',
    help: 'Server host when no --base-url',
  },
  {
    name: 'port',
    type: 'integer',
    valueName: 'PORT',
    default: 8000,
    min: 1,
    max: 65535,
    help: 'Server port when no --base-url',
  },
  {
    name: 'endpoint',
    type: 'string',
    valueName: 'PATH',
    help: "API path; default: the backend's (/v1/chat/completions, /v1/completions, /v1/messages, /v1/responses)",
  },
  {
    name: 'api-key',
    type: 'string',
    valueName: 'KEY',
    help: 'Key, sent as Bearer (x-api-key for anthropic-messages); else --api-key-env, else $OPENAI_API_KEY ($ANTHROPIC_API_KEY for anthropic-messages), else none',
  },
  {
    name: 'api-key-env',
    type: 'string',
    valueName: 'VAR',
    help: 'Environment variable holding the key; named in the error when unset',
  },
  {
    name: 'header',
    type: 'list',
    multipleValues: true,
    valueName: 'K=V',
    help: "Extra request header (repeat, comma-separate, or several after one flag as vLLM's nargs)",
  },
  {
    name: 'model',
    type: 'string',
    valueName: 'ID',
    help: "Model id (default: the first of the server's /v1/models)",
  },
  {
    name: 'served-model-name',
    type: 'string',
    valueName: 'NAME',
    help: "The body's model field, when it differs from --model",
  },
  {
    name: 'tokenizer',
    type: 'string',
    valueName: 'DIR|FILE',
    help: 'Local Hugging Face tokenizer folder or tokenizer.json (default: built-in estimate)',
  },
  {
    name: 'trust-remote-code',
    type: 'boolean',
    help: 'Accepted for vLLM compatibility; changes nothing (no Python code is ever run)',
  },
] as const satisfies readonly OptionSpec[];

export const DATASET_OPTIONS = [
  {
    name: 'dataset-name',
    type: 'string',
    choices: [...DATASET_NAMES, ...VLLM_ONLY_DATASETS],
    help:
      "sharegpt (default: the bundled sample; vLLM's default is random), vLLM's other datasets named and refused; " +
      'sharegpt, random, prefix_repetition, jsonl (custom), records (replay a tokenmeter gateway records file), or a trace: ' +
      'mooncake (JSON lines with timestamp, input_length, output_length, hash_ids), burstgpt (its CSV), ' +
      "timed_trace (vLLM's: the same lines, timestamps in seconds, see --timed-trace-*), " +
      'agentic (agent sessions, as trace export --sessions writes them, replayed turn by turn) or ' +
      "aiperf_sessions (AIPerf's Mooncake trace with session_id and delay)",
  },
  {
    name: 'dataset-path',
    type: 'string',
    valueName: 'FILE',
    help: 'Dataset file (default for sharegpt: the bundled sample)',
  },
  {
    name: 'dataset',
    type: 'string',
    valueName: 'FILE',
    help: 'Old name of --dataset-path (still in many scripts)',
  },
  // No default in the spec: with --duration, a typed --num-prompts is a cap and an untyped one is not.
  {
    name: 'num-prompts',
    type: 'integer',
    min: 1,
    valueName: 'N',
    help: 'Requests to send (default 1000; with --duration, the most to send)',
  },
  {
    name: 'seed',
    type: 'integer',
    default: 0,
    min: 0,
    max: 4294967295,
    valueName: 'N',
    help: "Seed for sampling and arrivals: vLLM's own draws, so the same seed gives vLLM's prompt order and send times",
  },
  {
    name: 'sharegpt-output-len',
    type: 'integer',
    min: 1,
    valueName: 'N',
    help: 'Ask every request for N output tokens instead of the reply length',
  },
  {
    name: 'random-input-len',
    type: 'integer',
    min: 0,
    valueName: 'N',
    help: 'random: input tokens (default 1024)',
  },
  {
    name: 'random-output-len',
    type: 'integer',
    min: 1,
    valueName: 'N',
    help: 'random: output tokens (default 128)',
  },
  {
    name: 'random-range-ratio',
    type: 'string',
    valueName: 'R',
    help: 'random: lengths drawn from len*(1-R)..len*(1+R), R in [0, 1); or, as vLLM takes it, JSON with a ratio for each: \'{"input": 0.3, "output": 0.5}\' (default 0)',
  },
  {
    name: 'random-prefix-len',
    type: 'integer',
    min: 0,
    valueName: 'N',
    help: 'random: shared prefix tokens (default 0)',
  },
  {
    name: 'prefix-repetition-prefix-len',
    type: 'integer',
    min: 0,
    valueName: 'N',
    help: 'prefix_repetition: tokens of each shared prefix (default 256)',
  },
  {
    name: 'prefix-repetition-suffix-len',
    type: 'integer',
    min: 0,
    valueName: 'N',
    help: "prefix_repetition: tokens of each prompt's own suffix after its prefix (default 256)",
  },
  {
    name: 'prefix-repetition-num-prefixes',
    type: 'integer',
    min: 1,
    valueName: 'N',
    help: 'prefix_repetition: distinct prefixes, each shared by --num-prompts / N prompts (default 10)',
  },
  {
    name: 'prefix-repetition-output-len',
    type: 'integer',
    min: 1,
    valueName: 'N',
    help: 'prefix_repetition: output tokens (default 128)',
  },
  {
    name: 'custom-output-len',
    type: 'integer',
    min: 1,
    valueName: 'N',
    help: 'jsonl: output tokens for lines without output_tokens (default 256)',
  },
  {
    name: 'replay-speed',
    type: 'number',
    min: 0.001,
    default: 1,
    valueName: 'X',
    help: 'records, mooncake, burstgpt, timed_trace, agentic, aiperf_sessions: replay X times faster than recorded (ignored with --request-rate, except by a self-timed timed_trace; agentic: waits between turns too)',
  },
  {
    name: 'trace-block-tokens',
    type: 'integer',
    min: 1,
    valueName: 'N',
    help: "mooncake, aiperf_sessions: tokens per hash id block (default 512, as in Mooncake's traces)",
  },
  {
    name: 'shared-system-prompt-length',
    type: 'integer',
    min: 1,
    max: 131_072,
    valueName: 'N',
    help: "Every request starts with the same N-token system prompt, seeded by --seed, over any dataset (AIPerf's name)",
  },
] as const satisfies readonly OptionSpec[];

export const LOAD_OPTIONS = [
  {
    name: 'engine',
    type: 'string',
    choices: ENGINE_NAMES,
    default: 'open-loop',
    help: 'open-loop: scheduled arrivals (undici); closed-loop: fixed concurrency, max throughput (autocannon)',
  },
  {
    name: 'burstiness',
    type: 'number',
    min: 0.000001,
    default: 1,
    valueName: 'B',
    help: 'Gamma shape of the gaps: 1 = Poisson, < 1 burstier',
  },
  {
    name: 'max-concurrency',
    type: 'integer',
    min: 1,
    valueName: 'N',
    help: 'Client-side cap on requests in flight (closed-loop: the concurrency, default 8)',
  },
  {
    name: 'ramp-up-strategy',
    type: 'string',
    choices: ['linear', 'exponential'],
    help: 'Ramp the rate from --ramp-up-start-rps to --ramp-up-end-rps',
  },
  { name: 'ramp-up-start-rps', type: 'number', min: 0, valueName: 'RPS', help: 'Ramp-up start rate' },
  { name: 'ramp-up-end-rps', type: 'number', min: 0, valueName: 'RPS', help: 'Ramp-up end rate' },
] as const satisfies readonly OptionSpec[];

export const PAYLOAD_OPTIONS = [
  {
    name: 'ignore-eos',
    type: 'boolean',
    help: 'Send ignore_eos so every answer runs to its max tokens (OpenAI backends; anthropic-messages and openai-responses have no such field)',
  },
  {
    name: 'temperature',
    type: 'number',
    min: 0,
    valueName: 'T',
    help: 'Send temperature T in every body; unset: not sent, the server decides (as vLLM since PR #32723; --temperature 0 for greedy)',
  },
  {
    name: 'extra-body',
    type: 'string',
    valueName: 'JSON',
    help: 'JSON object merged into every body (overrides our fields)',
  },
  {
    name: 'chat-content',
    type: 'string',
    choices: ['string', 'parts'],
    default: 'string',
    help: "Message content: a string, or vLLM's list of parts (also for anthropic-messages and openai-responses)",
  },
  {
    name: 'max-tokens-field',
    type: 'string',
    choices: ['max_tokens', 'max_completion_tokens'],
    help: 'Field for the output length (default: max_completion_tokens for chat, max_tokens for completions; anthropic-messages always sends max_tokens, openai-responses max_output_tokens)',
  },
  {
    name: 'no-stream-usage',
    type: 'boolean',
    help: 'Do not send stream_options.include_usage (output tokens are then counted by the tokenizer)',
  },
  {
    name: 'per-chunk-usage',
    type: 'boolean',
    help: "Ask for vLLM's stream_options.continuous_usage_stats (usage on every chunk, OpenAI backends): tokens per chunk from it, per-token ITL and the share of multi-token chunks (AIPerf's name)",
  },
] as const satisfies readonly OptionSpec[];

export const RESULT_OPTIONS = [
  { name: 'save-result', type: 'boolean', help: "Write vLLM's result JSON (+ a 'tokenmeter' key)" },
  {
    name: 'html',
    type: 'string',
    valueName: 'FILE',
    help: 'Also write a self-contained HTML report with charts (opens offline)',
  },
  {
    name: 'save-detailed',
    type: 'boolean',
    help: 'Include per-request arrays and generated texts in the result JSON',
  },
  {
    name: 'result-dir',
    type: 'string',
    valueName: 'DIR',
    default: '.',
    help: 'Folder for the result JSON and the records file',
  },
  {
    name: 'result-filename',
    type: 'string',
    valueName: 'NAME',
    help: 'Result file name (default: vLLM pattern)',
  },
  {
    name: 'label',
    type: 'string',
    valueName: 'TEXT',
    help: 'Label in the result file and its name (default: the backend)',
  },
  {
    name: 'metadata',
    type: 'list',
    multipleValues: true,
    valueName: 'K=V',
    help: 'Extra KEY=VALUE pairs saved in the result JSON',
  },
  {
    name: 'percentile-metrics',
    type: 'string',
    default: 'ttft,tpot,itl',
    valueName: 'LIST',
    help: 'Metrics to report: ttft,tpot,itl,e2el',
  },
  {
    name: 'metric-percentiles',
    type: 'string',
    default: '99',
    valueName: 'LIST',
    help: 'Percentiles to report, e.g. 50,90,99',
  },
  {
    name: 'goodput',
    type: 'list',
    multipleValues: true,
    valueName: 'NAME:MS',
    help: 'SLOs for goodput, e.g. ttft:500 tpot:50 e2el:10000',
  },
  {
    name: 'records-file',
    type: 'string',
    valueName: 'FILE',
    help: 'Stream one JSON line per request here (default: next to the result file, .records.jsonl)',
  },
  { name: 'no-records', type: 'boolean', help: 'Do not write the records file' },
  {
    name: 'gateway-records',
    type: 'string',
    valueName: 'FILE',
    help: "A tokenmeter gateway's records file: show its timings beside ours",
  },
  {
    name: 'span-receiver-port',
    type: 'integer',
    min: 0,
    max: 65535,
    valueName: 'PORT',
    help: "Take the server's OTLP trace exports at POST /v1/traces on this port during the run (point vLLM's --otlp-traces-endpoint here) and write its segments into each request's record",
  },
  {
    name: 'span-receiver-host',
    type: 'string',
    valueName: 'HOST',
    default: '127.0.0.1',
    help: 'Address of --span-receiver-port (0.0.0.0 when the server runs on another machine)',
  },
  {
    name: 'span-receiver-wait-ms',
    type: 'integer',
    min: 0,
    valueName: 'MS',
    help: `How long each record waits for its server's span (default ${DEFAULT_SPAN_WAIT_MS})`,
  },
] as const satisfies readonly OptionSpec[];

export const RUN_OPTIONS = [
  {
    name: 'smoke',
    type: 'boolean',
    help: '5 prompts; stop at the first failure and print the whole upstream answer',
  },
  {
    name: 'idle-timeout',
    type: 'number',
    min: 0.001,
    default: 300,
    valueName: 'S',
    help: 'Fail a request after S seconds without a byte',
  },
  {
    name: 'request-id-prefix',
    type: 'string',
    valueName: 'TEXT',
    help: 'x-request-id prefix (default: tokenmeter-<run id>-)',
  },
  { name: 'disable-tqdm', type: 'boolean', help: 'No progress display (vLLM name)' },
] as const satisfies readonly OptionSpec[];

/** Prices, --estimate and budget stops (docs/cost.md): bench's own, a sweep's levels are not priced. */
export const COST_OPTIONS = [
  {
    name: 'price-input',
    type: 'number',
    min: 0,
    valueName: 'PRICE',
    help: "Price of one million input (prompt) tokens: the report and result JSON carry the run's cost",
  },
  {
    name: 'price-output',
    type: 'number',
    min: 0,
    valueName: 'PRICE',
    help: 'Price of one million output tokens (with --price-input)',
  },
  {
    name: 'price-cached-input',
    type: 'number',
    min: 0,
    valueName: 'PRICE',
    help: "Price of one million prompt tokens the server read from its prompt cache (each answer's cached_tokens; with --price-input; default: the input price)",
  },
  {
    name: 'currency',
    type: 'string',
    default: 'USD',
    valueName: 'CODE',
    help: 'ISO 4217 code of the prices (USD, EUR, CNY)',
  },
  {
    name: 'estimate',
    type: 'boolean',
    help: "Print the run's predicted input and output tokens (and cost, when priced), send nothing, exit",
  },
  {
    name: 'max-cost',
    type: 'number',
    min: 0,
    valueName: 'AMOUNT',
    help: 'Stop sending once the answered requests cost this much (needs the prices); exits 3',
  },
  {
    name: 'max-total-tokens',
    type: 'integer',
    min: 1,
    valueName: 'N',
    help: 'Stop sending once the answered requests used N input + output tokens; exits 3',
  },
  {
    name: 'on-limit',
    type: 'string',
    choices: ON_LIMIT_CHOICES,
    default: 'finish',
    help: 'At --max-cost/--max-total-tokens, requests in flight finish, or are cancelled (closed-loop: cancel only)',
  },
] as const satisfies readonly OptionSpec[];

/** bench's own: a sweep's levels are neither bounded by time nor gated one by one. */
export const BENCH_ONLY_OPTIONS = [
  ...COST_OPTIONS,
  {
    name: 'request-cancellation-rate',
    type: 'number',
    min: 0,
    max: 100,
    valueName: 'PCT',
    help: "AIPerf's: cancel this percent of the requests (0-100), chosen by --seed, --request-cancellation-delay after each was written",
  },
  {
    name: 'request-cancellation-delay',
    type: 'number',
    min: 0,
    max: 86_400,
    valueName: 'S',
    help: "AIPerf's: seconds from a chosen request's write (headers and body sent) to its cancellation (default 0: at once)",
  },
  {
    name: 'duration',
    type: 'string',
    valueName: 'TIME',
    help: 'Send for this long (30s, 10m, 1h; a bare number is seconds), cycling the dataset; a typed --num-prompts caps the count',
    check: (text: string) =>
      (parseTimeMs(text, 's') ?? 0) > 0
        ? undefined
        : `--duration must be a time above 0: ${TIME_FORMS}, or seconds (got '${text}')`,
  },
  {
    name: 'threshold',
    type: 'list',
    valueName: 'EXPR',
    help: "Pass/fail check on a reported figure, e.g. 'ttft_p99 < 500ms' (repeatable); one not kept exits 99",
  },
  {
    name: 'otlp-endpoint',
    type: 'string',
    valueName: 'URL',
    help: 'Export one OpenTelemetry client span per request to this OTLP/HTTP collector (base URL; /v1/traces is appended); also OTEL_EXPORTER_OTLP_ENDPOINT',
  },
  {
    name: 'no-success-floor',
    type: 'boolean',
    help: 'Do not fail the run (exit 1) when fewer than 90% of its requests succeed',
  },
] as const satisfies readonly OptionSpec[];

/** Splitting one run across processes (--workers) or machines (--shard): loadgen/shards, docs/loadgen.md. */
export const SHARD_OPTIONS = [
  {
    name: 'workers',
    type: 'integer',
    min: 1,
    default: 1,
    valueName: 'N',
    help: 'Send the run from N processes on this machine (each a shard), merged into one report',
  },
  {
    name: 'shard',
    type: 'string',
    valueName: 'I/N',
    help: 'Send only shard I of N (0-based): arrivals I, I+N, ... of the --seed schedule; merge with tokenmeter merge',
  },
  {
    name: 'shard-count',
    type: 'integer',
    min: 1,
    valueName: 'N',
    help: 'Like --shard I/N with I from $JOB_COMPLETION_INDEX (a Kubernetes Indexed Job)',
  },
  {
    name: 'start-at',
    type: 'string',
    valueName: 'ISO-TIME',
    help: "Start the schedule at this instant (e.g. 2026-12-03T17:00:00Z), every shard's t = 0",
  },
  {
    name: 'start-delay',
    type: 'number',
    min: 0,
    valueName: 'S',
    help: 'Start the schedule S seconds after this process is ready (dataset loaded, model known)',
  },
] as const satisfies readonly OptionSpec[];

export const RATE_OPTION = {
  name: 'request-rate',
  type: 'number',
  min: 0,
  default: Number.POSITIVE_INFINITY,
  valueName: 'RPS',
  help: 'Requests per second, or inf to send all at once',
} as const satisfies OptionSpec;

/** `bench --multi-turn`: conversations as sessions (docs/loadgen.md, "Multi-turn sessions"). */
export const SESSION_OPTIONS = [
  {
    name: 'multi-turn',
    type: 'boolean',
    help: 'sharegpt: replay each conversation as a session; turn k sends the history with the answers the model gave',
  },
  {
    name: 'max-turns',
    type: 'integer',
    min: 1,
    valueName: 'N',
    help: '--multi-turn: at most N turns of each conversation (default: all)',
  },
  {
    name: 'max-active-conversations',
    type: 'integer',
    min: 1,
    valueName: 'N',
    help: '--multi-turn: at most N sessions in flight; others wait (default: no cap)',
  },
  {
    name: 'think-time-ms',
    type: 'string',
    valueName: 'MS|MIN-MAX',
    help: "--multi-turn: the user's pause between an answer and the next turn, fixed or uniform (default 0)",
  },
] as const satisfies readonly OptionSpec[];

export const BENCH_OPTIONS = [
  ...TARGET_OPTIONS,
  ...DATASET_OPTIONS,
  RATE_OPTION,
  ...LOAD_OPTIONS,
  ...PAYLOAD_OPTIONS,
  ...RESULT_OPTIONS,
  ...RUN_OPTIONS,
  ...BENCH_ONLY_OPTIONS,
  ...SESSION_OPTIONS,
  ...AGENT_OPTIONS,
  ...SHARD_OPTIONS,
  ...VLLM_SERVE_OPTIONS,
  ...TIMED_TRACE_OPTIONS,
  ...VLLM_ACCEPTED_ONLY_OPTIONS,
  ...SERVER_METRICS_OPTIONS,
] as const satisfies readonly OptionSpec[];

/** bench's flags, typed by their specs: what benchSettingsFrom and its helpers read. */
export type BenchValues = OptionValues<typeof BENCH_OPTIONS>;
