// What a request cost: prices per million tokens, configured per upstream and keyed by the model ID the upstream
// receives (the alias's `id`, or the client's model name for an unlisted model sent to the default upstream), so
// the same hosted model behind two aliases is priced once. The load generator prices its runs with the same
// function (loadgen/cost/). Money is floating point: the record and the metric are measurements, not invoices,
// and a sum of many requests may differ from the provider's bill in the last digits.

// ICU's list of ISO 4217 codes, as the runtime knows them.
const CURRENCIES: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency'));

/** An ISO 4217 code the runtime knows (upper case: USD, EUR, CNY). */
export function isCurrencyCode(code: string): boolean {
  return CURRENCIES.has(code);
}

export interface ModelPrice {
  /** Price of one million prompt tokens. */
  readonly inputPerMillion: number;
  /** Price of one million output tokens. */
  readonly outputPerMillion: number;
  /**
   * Price of one million prompt tokens the upstream read from its prompt cache; absent = the input price (no
   * discount, or a provider that does not report cached tokens).
   */
  readonly cachedInputPerMillion?: number;
  /** ISO 4217 code of every price. */
  readonly currency: string;
}

/** The token counts a cost is computed from; null = the upstream did not say. */
export interface TokenCounts {
  /** Every prompt token, cached ones included. */
  readonly promptTokens: number | null;
  /** Of promptTokens, those read from the prompt cache. */
  readonly cachedPromptTokens: number | null;
  readonly outputTokens: number | null;
}

export interface RequestCost {
  /** Null when the model has no price or the count of prompt tokens is unknown. */
  readonly costInput: number | null;
  /** Null when the model has no price or the count of output tokens is unknown. */
  readonly costOutput: number | null;
  readonly currency: string | null;
}

export const NO_COST: RequestCost = Object.freeze({ costInput: null, costOutput: null, currency: null });

/** Cached prompt tokens cost the cached-input price, the rest of the prompt the input price. */
export function inputCost(
  price: ModelPrice,
  promptTokens: number,
  cachedPromptTokens: number | null,
): number {
  // A cached count above the prompt count is an upstream's mistake: never price more tokens than the prompt had.
  const cached = Math.min(cachedPromptTokens ?? 0, promptTokens);
  const cachedPrice = price.cachedInputPerMillion ?? price.inputPerMillion;
  return ((promptTokens - cached) * price.inputPerMillion + cached * cachedPrice) / 1e6;
}

export function requestCost(price: ModelPrice | undefined, tokens: TokenCounts): RequestCost {
  if (price === undefined) return NO_COST;
  return {
    costInput:
      tokens.promptTokens === null ? null : inputCost(price, tokens.promptTokens, tokens.cachedPromptTokens),
    costOutput: tokens.outputTokens === null ? null : (tokens.outputTokens * price.outputPerMillion) / 1e6,
    currency: price.currency,
  };
}
