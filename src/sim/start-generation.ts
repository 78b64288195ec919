// From a valid request to a running Generation: model check, context length, request id and ground truth, an
// immediate fault if one is drawn, then the planned answer. The faults drawn, the tool-call decision and the
// JSON answer (sendJson) are at the end.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { hashSeed, SeededRandom } from '../shared/random.js';
import { naturalLength, planAnswer } from './answer-text.js';
import { type FaultSwitches, modelNotServed, type ToolSettings } from './config.js';
import { Generation } from './generation.js';
import {
  answerId,
  type GenerationRequest,
  type PlannedToolCall,
  type SimProtocol,
  type ToolChoice,
  type ToolSpec,
} from './protocols/protocol.js';
import { newTruth, type RequestTruth } from './request-truth.js';
import { SimMetrics } from './sim-metrics.js';
import type { SimulatorState } from './simulator-state.js';
import { argumentsFor } from './tool-arguments.js';

/** The per-request override of the reasoning part's length. */
export const REASONING_TOKENS_HEADER = 'x-sim-reasoning-tokens';

/**
 * Reasoning tokens when the request asks for reasoning (Anthropic `thinking`, Responses `reasoning`, chat
 * `reasoning_effort`) and neither --reasoning-tokens nor the header says how many: by the effort asked.
 */
export const REQUESTED_REASONING_TOKENS: Readonly<Record<string, number>> = {
  minimal: 16,
  low: 32,
  medium: 64,
  high: 128,
  xhigh: 256,
  max: 256,
};

/**
 * How many reasoning tokens this answer starts with: the header's value, else the configured one, else what the
 * request's effort asks for (within Anthropic's budget_tokens); completions get none (vLLM separates reasoning on
 * the chat, Responses and Messages APIs only). A string is the 400's text.
 */
function reasoningLength(
  req: IncomingMessage,
  protocol: SimProtocol,
  request: GenerationRequest,
  configured: number,
  maxModelLen: number,
): number | string {
  if (protocol.name === 'openai-completions') return 0;
  const header = req.headers[REASONING_TOKENS_HEADER];
  if (header === undefined) {
    if (configured > 0 || request.reasoningEffort === undefined) return configured;
    const asked =
      REQUESTED_REASONING_TOKENS[request.reasoningEffort] ?? (REQUESTED_REASONING_TOKENS['medium'] as number);
    return Math.min(asked, request.reasoningBudget ?? asked);
  }
  const value = Number(header);
  if (typeof header !== 'string' || !/^\d+$/.test(header) || value > maxModelLen) {
    return `${REASONING_TOKENS_HEADER} must be an integer from 0 to ${maxModelLen} (got ${JSON.stringify(header)})`;
  }
  return value;
}

export function startGeneration(
  state: SimulatorState,
  protocol: SimProtocol,
  request: GenerationRequest,
  req: IncomingMessage,
  res: ServerResponse,
  receivedAtMs: number,
): void {
  const { config, env } = state;
  const model = request.model ?? (config.servedModelNames[0] as string);
  const unknown = modelNotServed(config, model);
  if (unknown !== undefined) {
    sendJson(res, 404, protocol.error(404, unknown, 'model_not_found', 'model'));
    return;
  }
  const maxLen = config.timing.maxModelLen;
  // Like vLLM: a prompt that leaves no room for one output token is refused whatever max_tokens says; without
  // max_tokens the answer may fill the rest of the context.
  if (request.promptTokens >= maxLen) {
    const message = `This model's maximum context length is ${maxLen} tokens. However, your request has ${request.promptTokens} input tokens. Please reduce the length of the input messages.`;
    sendJson(res, 400, protocol.error(400, message, 'context_length_exceeded'));
    return;
  }
  const maxTokens = request.maxTokens ?? maxLen - request.promptTokens;
  if (request.promptTokens + maxTokens > maxLen) {
    // vLLM's wording since 0.10 (vllm/entrypoints/openai/serving_engine.py).
    const message = `'max_tokens' or 'max_completion_tokens' is too large: ${maxTokens}. This model's maximum context length is ${maxLen} tokens and your request has ${request.promptTokens} input tokens (${maxTokens} > ${maxLen} - ${request.promptTokens}).`;
    sendJson(res, 400, protocol.error(400, message, 'context_length_exceeded'));
    return;
  }
  const reasoningTokens = reasoningLength(req, protocol, request, config.reasoning.tokens, maxLen);
  if (typeof reasoningTokens === 'string') {
    sendJson(res, 400, protocol.error(400, reasoningTokens, 'invalid_value'));
    return;
  }
  const headerId = req.headers['x-request-id'];
  const requestId = typeof headerId === 'string' && headerId !== '' ? headerId : randomUUID();
  const truth = newTruth(requestId, protocol.name, model, request.stream, receivedAtMs);
  truth.promptTokens = request.promptTokens;
  truth.trace = env.spans?.spanOf(req);
  env.truths.add(truth);
  env.metrics.promptTokens.inc(SimMetrics.engineLabels(model), request.promptTokens);

  const fault = drawImmediateFault(config.faults, state.faultRandom);
  if (fault) {
    answerWithFault(protocol, request, model, fault, truth, res);
    env.truths.finish(truth);
    return;
  }
  // Same request, same answer: everything drawn below is seeded by the request's content and --seed, never by
  // when it arrived, so two runs of one workload get the same answers whatever their interleaving. Greedy
  // decoding (temperature 0) and sampling draw apart; sampled answers also vary with the request's own `seed`.
  const variant = request.temperature === 0 ? 'greedy' : `sampled:${request.samplingSeed ?? ''}`;
  // The prompt (tens of KB for an agent's tool list) is hashed once; each draw below gets its own stream from that.
  const requestSeed = hashSeed(config.seed, model, request.promptText, variant);
  const textRandom = new SeededRandom(requestSeed);
  const eosAfter = naturalLength(textRandom, config.timing.eosMedianTokens);
  const chainTurns = state.responseChains.toolTurns(request.previousResponseId);
  const toolCall = decideToolCall(
    { ...request, toolTurns: request.toolTurns + chainTurns },
    config.tools,
    new SeededRandom(hashSeed(requestSeed, 'tool')),
  );
  const answer = planAnswer(
    textRandom,
    maxTokens,
    eosAfter,
    request.ignoreEos,
    request.stop,
    reasoningTokens,
    toolCall,
  );
  if (protocol.name === 'openai-responses') {
    state.responseChains.add(
      answerId(protocol, truth.requestId),
      request.toolTurns + chainTurns + (answer.toolCall === undefined ? 0 : 1),
    );
  }
  const jitter = new SeededRandom(hashSeed(requestSeed, 'jitter'));
  const drafts = new SeededRandom(hashSeed(requestSeed, 'speculative'));
  new Generation(env, protocol, request, model, answer, jitter, drafts, config.faults, truth, res).start();
}

function answerWithFault(
  protocol: SimProtocol,
  request: GenerationRequest,
  model: string,
  fault: ImmediateFault,
  truth: RequestTruth,
  res: ServerResponse,
): void {
  truth.fault = faultName(fault);
  truth.endedAtMs = performance.now();
  const headers = { 'x-request-id': truth.requestId };
  if (fault.kind === 'error') {
    truth.status = fault.status;
    const message = `simulated upstream failure (status ${fault.status})`;
    sendJson(res, fault.status, protocol.error(fault.status, message, 'simulated_error'), headers);
  } else if (fault.kind === 'rate-limit') {
    truth.status = 429;
    const message = 'Rate limit reached: retry after the time in Retry-After.';
    sendJson(res, 429, protocol.error(429, message, 'rate_limit_exceeded'), {
      ...headers,
      'retry-after': String(fault.retryAfterS),
    });
  } else if (request.stream) {
    // HTTP 200, then an error where the answer should be: the stream carries no choices at all.
    const wire = protocol.wire({
      id: truth.requestId,
      created: 0,
      model,
      request,
      roleChunk: 'with-first-token',
      reasoning: false,
      chatReasoningField: 'reasoning',
      toolCall: undefined,
    });
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', ...headers });
    res.end(wire.opening() + wire.streamError('The upstream provider returned an error: model overloaded'));
  } else {
    const message = 'The upstream provider returned an error: model overloaded, please retry';
    sendJson(res, 200, protocol.error(500, message, 'provider_error'), headers);
  }
}

// Faults that answer at once instead of generating, drawn per request from a seeded sequence so a failing run can
// be replayed exactly. (Faults inside a stream, cut and stall, are handled by Generation.)
export type ImmediateFault =
  | { readonly kind: 'error'; readonly status: number }
  | { readonly kind: 'rate-limit'; readonly retryAfterS: number }
  | { readonly kind: 'error-body' };

export function drawImmediateFault(faults: FaultSwitches, random: SeededRandom): ImmediateFault | undefined {
  const roll = random.next();
  if (roll < faults.errorRate) return { kind: 'error', status: faults.errorStatus };
  if (roll < faults.errorRate + faults.rateLimitRate)
    return { kind: 'rate-limit', retryAfterS: faults.retryAfterS };
  if (roll < faults.errorRate + faults.rateLimitRate + faults.errorBodyRate) return { kind: 'error-body' };
  return undefined;
}

export function faultName(fault: ImmediateFault): string {
  if (fault.kind === 'error') return `error ${fault.status}`;
  return fault.kind === 'rate-limit' ? 'rate limited' : 'error body with 200';
}

// Whether an answer calls a tool, and which: a seeded decision, so the same request gets the same answer. A turn
// calls a tool when the request offers function tools, its tool_choice allows one and the conversation has made
// fewer than --max-tool-turns tool calls so far (counted from its own history, so every agent loop ends); then
// tool_choice `required` or a named tool forces the call, and `auto` draws it with --tool-call-rate. The tool is
// the named one or one of the offered tools drawn uniformly; its arguments come from tool-arguments.ts.
const ID_CHARACTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const ID_LENGTH = 24;

export interface ToolOffer {
  readonly tools: readonly ToolSpec[];
  readonly toolChoice: ToolChoice;
  /** Tool-calling turns the conversation already holds. */
  readonly toolTurns: number;
}

export function decideToolCall(
  offer: ToolOffer,
  settings: ToolSettings,
  random: SeededRandom,
): PlannedToolCall | undefined {
  const { tools, toolChoice, toolTurns } = offer;
  if (tools.length === 0 || toolChoice === 'none' || toolTurns >= settings.maxToolTurns) return undefined;
  const draw = random.next();
  let tool: ToolSpec | undefined;
  if (typeof toolChoice === 'object') tool = tools.find((t) => t.name === toolChoice.name);
  else if (toolChoice === 'required' || draw < settings.callRate)
    tool = tools[random.int(0, tools.length - 1)];
  if (tool === undefined) return undefined;
  let idSuffix = '';
  for (let i = 0; i < ID_LENGTH; i++) idSuffix += ID_CHARACTERS[random.int(0, ID_CHARACTERS.length - 1)];
  return { idSuffix, name: tool.name, arguments: JSON.stringify(argumentsFor(tool.schema, random)) };
}

/** A JSON answer, whole: a fault's, an error's, or the server's own endpoints'. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(text);
}
