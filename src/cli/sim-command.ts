// `tokenmeter sim`: a vLLM-like OpenAI-compatible server for machines without a GPU.

import {
  givenByKey,
  type OptionSpec,
  type OptionValues,
  type ParsedCommandLine,
} from '../shared/option-schema.js';
import { UserFacingError } from '../shared/user-facing-error.js';
import {
  DEFAULT_KV,
  DEFAULT_SIM_CONFIG,
  DEFAULT_TIMING,
  DEFAULT_TOOLS,
  NO_FAULTS,
  NO_REASONING,
  readSimConfigFile,
  type SimOptions,
} from '../sim/config.js';
import type { RunningSimulator } from '../sim/index.js';
import { describeKvCapacity } from '../sim/kv-capacity.js';
import { defineCommand } from './command.js';
import { waitForShutdownSignal } from './signals.js';

const t = DEFAULT_TIMING;
const f = NO_FAULTS;
const k = DEFAULT_KV;

export const SIM_OPTIONS = [
  {
    name: 'host',
    key: 'host',
    type: 'string',
    default: DEFAULT_SIM_CONFIG.host,
    valueName: 'HOST',
    help: 'Address to listen on',
  },
  {
    name: 'port',
    key: 'port',
    type: 'integer',
    default: DEFAULT_SIM_CONFIG.port,
    min: 0,
    max: 65535,
    valueName: 'PORT',
    help: 'Port to listen on (0 = any free port)',
  },
  {
    name: 'config',
    type: 'string',
    valueName: 'FILE',
    help: 'JSON file with settings (see docs/simulator.md); flags override it',
  },
  {
    name: 'seed',
    key: 'seed',
    type: 'integer',
    default: 0,
    valueName: 'N',
    help: 'Seed for answers, jitter and faults: same seed, same run',
  },
  {
    name: 'served-model-name',
    key: 'servedModelNames',
    type: 'list',
    valueName: 'NAME',
    help: `Model names to serve, comma-separated (default: ${DEFAULT_SIM_CONFIG.servedModelNames[0]})`,
  },
  {
    name: 'api-key',
    key: 'apiKey',
    type: 'string',
    env: 'TOKENMETER_SIM_API_KEY',
    valueName: 'KEY',
    help: 'Require "Authorization: Bearer KEY" (401 otherwise)',
  },
  {
    name: 'chat-only',
    key: 'chatOnly',
    type: 'boolean',
    help: 'Serve only /v1/chat/completions; /v1/completions answers 404 like some hosted gateways',
  },
  {
    name: 'truth-log',
    key: 'truthLog',
    type: 'string',
    valueName: 'FILE',
    help: 'Append one ground-truth JSON line per finished request',
  },
  {
    name: 'otlp-traces-endpoint',
    key: 'otlpTracesEndpoint',
    type: 'string',
    valueName: 'URL',
    help: "Export an `llm_request` span per request to this OTLP/HTTP traces URL, with vLLM's attribute names",
  },
  {
    name: 'path-prefix',
    key: 'pathPrefix',
    type: 'string',
    default: DEFAULT_SIM_CONFIG.pathPrefix,
    valueName: 'PATH',
    help: 'Serve the API under PATH (/api: base URL http://HOST:PORT/api/v1); /health, /metrics and /sim stay at /',
  },
  {
    name: 'ttft-ms',
    key: 'timing.ttftMs',
    type: 'number',
    min: 0,
    default: t.ttftMs,
    valueName: 'MS',
    help: 'Fixed part of the time to first token',
  },
  {
    name: 'prefill-ms-per-token',
    key: 'timing.prefillMsPerToken',
    type: 'number',
    min: 0,
    default: t.prefillMsPerToken,
    valueName: 'MS',
    help: 'Prefill cost per prompt token',
  },
  {
    name: 'itl-ms',
    key: 'timing.itlMs',
    type: 'number',
    min: 0,
    default: t.itlMs,
    valueName: 'MS',
    help: 'Gap between tokens for a lone sequence',
  },
  {
    name: 'jitter',
    key: 'timing.jitter',
    type: 'number',
    min: 0,
    max: 1,
    default: t.jitter,
    valueName: 'FRACTION',
    help: 'Random spread of each gap: gap x (1 +- jitter)',
  },
  {
    name: 'tokens-per-chunk',
    key: 'timing.tokensPerChunk',
    type: 'integer',
    min: 1,
    default: t.tokensPerChunk,
    valueName: 'N',
    help: 'Tokens per SSE chunk (1 like vLLM; more like batching gateways)',
  },
  {
    name: 'num-speculative-tokens',
    key: 'timing.speculativeTokens',
    type: 'integer',
    min: 0,
    default: t.speculativeTokens,
    valueName: 'N',
    help: 'Speculative decoding: draft tokens per step; each step writes 1 + the accepted ones as one chunk (0 = off)',
  },
  {
    name: 'spec-acceptance-rate',
    key: 'timing.specAcceptanceRate',
    type: 'number',
    min: 0,
    max: 1,
    default: t.specAcceptanceRate,
    valueName: 'FRACTION',
    help: 'With --num-speculative-tokens: chance each draft token is accepted after the ones before it',
  },
  {
    name: 'max-num-seqs',
    key: 'timing.maxNumSeqs',
    type: 'integer',
    min: 1,
    default: t.maxNumSeqs,
    valueName: 'N',
    help: 'Sequences decoded at once; the rest queue',
  },
  {
    name: 'batch-slowdown',
    key: 'timing.batchSlowdown',
    type: 'number',
    min: 0,
    default: t.batchSlowdown,
    valueName: 'FRACTION',
    help: 'Extra step time per additional running sequence',
  },
  {
    name: 'eos-median-tokens',
    key: 'timing.eosMedianTokens',
    type: 'integer',
    min: 1,
    default: t.eosMedianTokens,
    valueName: 'N',
    help: 'Median answer length when not limited by max_tokens',
  },
  {
    name: 'max-model-len',
    key: 'timing.maxModelLen',
    type: 'integer',
    min: 16,
    default: t.maxModelLen,
    valueName: 'N',
    help: 'Context length: prompt + max_tokens above it is a 400',
  },
  {
    name: 'role-chunk',
    key: 'timing.roleChunk',
    type: 'string',
    choices: ['with-first-token', 'immediately'],
    default: t.roleChunk,
    valueName: 'WHEN',
    help: 'When the role-only first delta is sent',
  },
  {
    name: 'kv-cache-tokens',
    key: 'kv.kvCacheTokens',
    type: 'integer',
    min: 0,
    default: k.kvCacheTokens,
    valueName: 'N',
    help: 'KV cache capacity in tokens (16-token blocks); 0 = from --gpu-memory-utilization, or room for every seat',
  },
  {
    name: 'gpu-memory-utilization',
    key: 'kv.gpuMemoryUtilization',
    type: 'number',
    min: 0,
    max: 1,
    default: k.gpuMemoryUtilization,
    valueName: 'FRACTION',
    help: "vLLM's flag: KV cache = FRACTION x --gpu-memory-gib - --model-weights-gib (0 = no memory model)",
  },
  {
    name: 'gpu-memory-gib',
    key: 'kv.gpuMemoryGiB',
    type: 'number',
    min: 0,
    default: k.gpuMemoryGiB,
    valueName: 'GIB',
    help: 'Memory of the simulated GPU, for --gpu-memory-utilization',
  },
  {
    name: 'model-weights-gib',
    key: 'kv.modelWeightsGiB',
    type: 'number',
    min: 0,
    default: k.modelWeightsGiB,
    valueName: 'GIB',
    help: 'Weights, activations and overhead: GPU memory the KV cache cannot use',
  },
  {
    name: 'kv-bytes-per-token',
    key: 'kv.kvBytesPerToken',
    type: 'integer',
    min: 1,
    default: k.kvBytesPerToken,
    valueName: 'BYTES',
    help: 'KV cache bytes per token: 2 x layers x KV heads x head size x bytes per value',
  },
  {
    name: 'enable-prefix-caching',
    key: 'kv.enablePrefixCaching',
    type: 'boolean',
    help: "vLLM's flag: cache full prompt blocks by prefix hash and skip their prefill (off by default here)",
  },
  {
    name: 'reasoning-tokens',
    key: 'reasoning.tokens',
    type: 'integer',
    min: 0,
    default: NO_REASONING.tokens,
    valueName: 'N',
    help: 'A reasoning model: N reasoning tokens stream before each answer (header x-sim-reasoning-tokens per request)',
  },
  {
    name: 'reasoning-field',
    key: 'reasoning.chatField',
    type: 'string',
    choices: ['reasoning', 'reasoning_content'],
    default: NO_REASONING.chatField,
    valueName: 'NAME',
    help: 'Chat delta field carrying reasoning',
  },
  {
    name: 'tool-call-rate',
    key: 'tools.callRate',
    type: 'number',
    min: 0,
    max: 1,
    default: DEFAULT_TOOLS.callRate,
    valueName: 'FRACTION',
    help: "Chance that an answer calls one of the request's tools (tool_choice auto; required or a named tool always does)",
  },
  {
    name: 'max-tool-turns',
    key: 'tools.maxToolTurns',
    type: 'integer',
    min: 0,
    default: DEFAULT_TOOLS.maxToolTurns,
    valueName: 'N',
    help: 'No tool call once the conversation holds N tool-calling turns, so every agent loop ends',
  },
  {
    name: 'error-rate',
    key: 'faults.errorRate',
    type: 'number',
    min: 0,
    max: 1,
    default: f.errorRate,
    valueName: 'FRACTION',
    help: 'Fault: answer this fraction of requests with --error-status',
  },
  {
    name: 'error-status',
    key: 'faults.errorStatus',
    type: 'integer',
    min: 400,
    max: 599,
    default: f.errorStatus,
    valueName: 'CODE',
    help: 'Status used by --error-rate',
  },
  {
    name: 'rate-limit-rate',
    key: 'faults.rateLimitRate',
    type: 'number',
    min: 0,
    max: 1,
    default: f.rateLimitRate,
    valueName: 'FRACTION',
    help: 'Fault: answer this fraction with 429 and Retry-After',
  },
  {
    name: 'retry-after',
    key: 'faults.retryAfterS',
    type: 'integer',
    min: 0,
    default: f.retryAfterS,
    valueName: 'SECONDS',
    help: 'Retry-After value of the 429 fault',
  },
  {
    name: 'cut-after-tokens',
    key: 'faults.cutAfterTokens',
    type: 'integer',
    min: 0,
    default: f.cutAfterTokens,
    valueName: 'N',
    help: 'Fault: drop the connection after N tokens (0 = never)',
  },
  {
    name: 'stall-after-tokens',
    key: 'faults.stallAfterTokens',
    type: 'integer',
    min: 0,
    default: f.stallAfterTokens,
    valueName: 'N',
    help: 'Fault: pause once after N tokens (0 = never)',
  },
  {
    name: 'stall-ms',
    key: 'faults.stallMs',
    type: 'number',
    min: 0,
    default: f.stallMs,
    valueName: 'MS',
    help: 'Length of the --stall-after-tokens pause',
  },
  {
    name: 'error-body-rate',
    key: 'faults.errorBodyRate',
    type: 'number',
    min: 0,
    max: 1,
    default: f.errorBodyRate,
    valueName: 'FRACTION',
    help: 'Fault: answer HTTP 200 with an error object instead of choices',
  },
] as const satisfies readonly OptionSpec[];

/** The sections of a config file that flags fill field by field (the rest of the file is replaced key by key). */
const SECTIONS = ['timing', 'kv', 'reasoning', 'tools', 'faults'] as const;

/** Only flags the user typed override the config file; the rest keep the file's value or the default. */
export function simOptionsFromCommandLine(
  commandLine: ParsedCommandLine<OptionValues<typeof SIM_OPTIONS>>,
): SimOptions {
  const { options: o } = commandLine;
  const fromFile: Record<string, unknown> =
    o['config'] === undefined ? {} : { ...readSimConfigFile(o['config']) };
  // --config names the file itself: no setting of it.
  const flags = givenByKey(
    SIM_OPTIONS.filter((spec) => spec.name !== 'config'),
    commandLine,
  );
  const top: Record<string, unknown> = { host: o['host'], port: o['port'], ...fromFile, ...flags };
  for (const section of SECTIONS)
    top[section] = { ...(fromFile[section] as object), ...(flags[section] as object) };
  // resolveSimConfig checks every name and type of the file's and the flags' values alike.
  return top as SimOptions;
}

export const simCommand = defineCommand({
  usage: ['sim [--host 127.0.0.1] [--port 8000] [--config sim.json] [options]'],
  options: SIM_OPTIONS,
  details: 'Timing model, fault switches and ground-truth endpoints: docs/simulator.md',
  async run(commandLine) {
    const simOptions = simOptionsFromCommandLine(commandLine);
    const { startSimulator } = await import('../sim/index.js');
    let sim: RunningSimulator;
    try {
      sim = await startSimulator(simOptions);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EADDRINUSE') {
        throw new UserFacingError(
          `port ${String(simOptions.port)} is already in use: stop what uses it or pick another with --port`,
        );
      }
      if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') {
        throw new UserFacingError(
          `cannot listen on host ${String(simOptions.host)}: not an address of this machine`,
        );
      }
      throw error;
    }
    const models = sim.config.servedModelNames.join(', ');
    process.stdout.write(`tokenmeter sim listening on ${sim.url} (models: ${models})\n`);
    if (sim.config.pathPrefix !== '') {
      process.stdout.write(
        `API under ${sim.config.pathPrefix}: base URL ${sim.url}${sim.config.pathPrefix}/v1\n`,
      );
    }
    process.stdout.write(`${describeKvCapacity(sim.kvCapacity, sim.config.timing.maxModelLen)}\n`);
    await waitForShutdownSignal();
    await sim.close();
    return 0;
  },
});
