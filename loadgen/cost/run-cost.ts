// What a bench run's requests cost, from its own records, priced by the gateway's function (requestCost in
// src/gateway/model-prices.ts) so a run and a gateway price the same tokens the same way. A request counts once
// the server answered it (a 2xx status): that is when a hosted API bills the prompt and whatever was generated,
// even if the stream was then cut or cancelled. Requests refused (4xx, 5xx) or never answered cost nothing.
import { type ModelPrice, requestCost } from '../../src/gateway/model-prices.js';
import type { RequestRecord } from '../record.js';

export interface RunTokens {
  /** Requests the server answered. */
  readonly answered: number;
  /** By the run's tokenizer, as vLLM counts a prompt (the load generator does not see the server's count). */
  readonly inputTokens: number;
  /** The server's usage when it sent it, else the tokenizer's count of the text (outputTokensSource). */
  readonly outputTokens: number;
}

export interface RunCost extends RunTokens {
  readonly currency: string;
  readonly inputCost: number;
  readonly outputCost: number;
  readonly totalCost: number;
}

export function isAnswered(record: Pick<RequestRecord, 'status'>): boolean {
  return record.status !== null && record.status >= 200 && record.status < 300;
}

/** Prompt + output tokens of one request as the budget and the cost count them (0 when unanswered). */
export function usedTokens(record: RequestRecord): number {
  return isAnswered(record) ? record.promptTokens + record.outputTokens : 0;
}

/** One request's cost at `price` (0 when unanswered). Cached prompt tokens are not seen by the load generator. */
export function recordCost(record: RequestRecord, price: ModelPrice): number {
  if (!isAnswered(record)) return 0;
  const cost = requestCost(price, {
    promptTokens: record.promptTokens,
    cachedPromptTokens: null,
    outputTokens: record.outputTokens,
  });
  return (cost.costInput ?? 0) + (cost.costOutput ?? 0);
}

export function runTokens(records: readonly RequestRecord[]): RunTokens {
  let answered = 0;
  let inputTokens = 0;
  let outputTokens = 0;
  for (const record of records) {
    if (!isAnswered(record)) continue;
    answered++;
    inputTokens += record.promptTokens;
    outputTokens += record.outputTokens;
  }
  return { answered, inputTokens, outputTokens };
}

export function runCost(records: readonly RequestRecord[], price: ModelPrice): RunCost {
  const tokens = runTokens(records);
  const cost = requestCost(price, {
    promptTokens: tokens.inputTokens,
    cachedPromptTokens: null,
    outputTokens: tokens.outputTokens,
  });
  const inputCost = cost.costInput ?? 0;
  const outputCost = cost.costOutput ?? 0;
  return { ...tokens, currency: price.currency, inputCost, outputCost, totalCost: inputCost + outputCost };
}
