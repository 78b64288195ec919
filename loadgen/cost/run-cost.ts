// What a bench run's requests cost, from its own records, priced by the gateway's function (requestCost in
// src/gateway/config/model-prices.ts) so a run and a gateway price the same tokens the same way. A request counts
// once the server answered it (a 2xx status): that is when a hosted API bills the prompt and whatever was
// generated, even if the stream was then cut or cancelled. Requests refused (4xx, 5xx) or never answered cost
// nothing. The input is the server's count where its usage gave one (loadgen/record.ts, inputTokens).
import { type ModelPrice, requestCost } from '../../src/gateway/config/model-prices.js';
import { inputTokens, type RequestRecord } from '../record.js';

export interface RunTokens {
  /** Requests the server answered. */
  readonly answered: number;
  /** The server's usage.prompt_tokens where it reported one (what it bills, and vLLM's count), else ours. */
  readonly inputTokens: number;
  /**
   * Of inputTokens, those the server said it read from its prompt cache (its usage's cached count, capped at the
   * request's prompt tokens); 0 when it never said.
   */
  readonly cachedInputTokens: number;
  /** The server's usage when it sent it, else the tokenizer's count of the text (outputTokensSource). */
  readonly outputTokens: number;
}

export interface RunCost extends RunTokens {
  readonly currency: string;
  /** Every prompt token's cost, the cached ones at the cached-input price included. */
  readonly inputCost: number;
  /** The part of inputCost paid for cached prompt tokens. */
  readonly cachedInputCost: number;
  readonly outputCost: number;
  readonly totalCost: number;
}

export function isAnswered(record: Pick<RequestRecord, 'status'>): boolean {
  return record.status !== null && record.status >= 200 && record.status < 300;
}

/** Prompt + output tokens of one request as the budget and the cost count them (0 when unanswered). */
export function usedTokens(record: RequestRecord): number {
  return isAnswered(record) ? inputTokens(record) + record.outputTokens : 0;
}

/** The server's cached count, never more than the prompt's (ours, where the server gave no prompt count). */
function cachedTokensOf(record: RequestRecord): number {
  return Math.min(record.cachedPromptTokens ?? 0, inputTokens(record));
}

/** One request's cost at `price` (0 when unanswered). */
export function recordCost(record: RequestRecord, price: ModelPrice): number {
  if (!isAnswered(record)) return 0;
  const cost = requestCost(price, {
    promptTokens: inputTokens(record),
    cachedPromptTokens: cachedTokensOf(record),
    outputTokens: record.outputTokens,
  });
  return (cost.costInput ?? 0) + (cost.costOutput ?? 0);
}

export function runTokens(records: readonly RequestRecord[]): RunTokens {
  let answered = 0;
  let input = 0;
  let cachedInputTokens = 0;
  let outputTokens = 0;
  for (const record of records) {
    if (!isAnswered(record)) continue;
    answered++;
    input += inputTokens(record);
    cachedInputTokens += cachedTokensOf(record);
    outputTokens += record.outputTokens;
  }
  return { answered, inputTokens: input, cachedInputTokens, outputTokens };
}

export function runCost(records: readonly RequestRecord[], price: ModelPrice): RunCost {
  const tokens = runTokens(records);
  // A price is per token, so the run's sums priced once equal the sum of its requests priced one by one.
  const cost = requestCost(price, {
    promptTokens: tokens.inputTokens,
    cachedPromptTokens: tokens.cachedInputTokens,
    outputTokens: tokens.outputTokens,
  });
  const inputCost = cost.costInput ?? 0;
  const outputCost = cost.costOutput ?? 0;
  const cachedInputCost =
    (tokens.cachedInputTokens * (price.cachedInputPerMillion ?? price.inputPerMillion)) / 1e6;
  return {
    ...tokens,
    currency: price.currency,
    inputCost,
    cachedInputCost,
    outputCost,
    totalCost: inputCost + outputCost,
  };
}
