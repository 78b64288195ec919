// What a request cost: prices per million tokens, configured per upstream and keyed by the model ID the upstream
// receives (the alias's `id`, or the client's model name for an unlisted model sent to the default upstream), so
// the same hosted model behind two aliases is priced once. Money is floating point: the record and the metric are
// measurements, not invoices, and a sum of many requests may differ from the provider's bill in the last digits.

export interface ModelPrice {
  /** Price of one million prompt tokens. */
  readonly inputPerMillion: number;
  /** Price of one million output tokens. */
  readonly outputPerMillion: number;
  /** ISO 4217 code of both prices. */
  readonly currency: string;
}

export interface RequestCost {
  /** Null when the model has no price or the count of prompt tokens is unknown. */
  readonly costInput: number | null;
  /** Null when the model has no price or the count of output tokens is unknown. */
  readonly costOutput: number | null;
  readonly currency: string | null;
}

export const NO_COST: RequestCost = Object.freeze({ costInput: null, costOutput: null, currency: null });

/** Cached prompt tokens are not extracted from usage: every prompt token is priced at the input price. */
export function requestCost(
  price: ModelPrice | undefined,
  promptTokens: number | null,
  outputTokens: number | null,
): RequestCost {
  if (price === undefined) return NO_COST;
  return {
    costInput: promptTokens === null ? null : (promptTokens * price.inputPerMillion) / 1e6,
    costOutput: outputTokens === null ? null : (outputTokens * price.outputPerMillion) / 1e6,
    currency: price.currency,
  };
}
