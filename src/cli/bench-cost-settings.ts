// bench's cost flags (--price-input, --price-output, --price-cached-input, --currency, --estimate, --max-cost,
// --max-total-tokens, --on-limit) -> CostSettings, refusing before anything is sent what could not be honoured:
// half a price (a cached-input price alone included), a cost limit without a price, a currency code the runtime
// does not know, and a budget that the closed-loop engine cannot stop gently.

import type { EngineName } from '../../loadgen/bench/settings.js';
import { type BudgetLimits, type CostSettings, hasLimits } from '../../loadgen/cost/cost-settings.js';
import { isCurrencyCode, type ModelPrice } from '../gateway/config/model-prices.js';
import { UsageError } from '../shared/user-facing-error.js';
import type { BenchValues } from './bench-options.js';

function priceFrom(o: BenchValues): ModelPrice | undefined {
  const input = o['price-input'];
  const output = o['price-output'];
  const cachedInput = o['price-cached-input'];
  if (input === undefined && output === undefined) {
    if (cachedInput !== undefined)
      throw new UsageError(
        '--price-cached-input needs --price-input and --price-output (prices per million tokens; 0 for a free side)',
      );
    return undefined;
  }
  if (input === undefined || output === undefined)
    throw new UsageError(
      '--price-input and --price-output go together (prices per million tokens; 0 for a free side)',
    );
  const currency = o['currency'];
  if (!isCurrencyCode(currency)) {
    const upper = currency.toUpperCase();
    const hint = isCurrencyCode(upper) ? ` (did you mean ${upper}?)` : '';
    throw new UsageError(
      `--currency must be an ISO 4217 code such as USD, EUR or CNY (got '${currency}')${hint}`,
    );
  }
  return {
    inputPerMillion: input,
    outputPerMillion: output,
    ...(cachedInput === undefined ? {} : { cachedInputPerMillion: cachedInput }),
    currency,
  };
}

export function costSettingsFrom(
  o: BenchValues,
  run: { readonly engine: EngineName; readonly smoke: boolean; readonly fullRunPrompts: number },
): CostSettings {
  const price = priceFrom(o);
  const maxCost = o['max-cost'];
  const maxTotalTokens = o['max-total-tokens'];
  const onLimit = o['on-limit'];
  const limits: BudgetLimits = {
    ...(maxCost === undefined ? {} : { maxCost }),
    ...(maxTotalTokens === undefined ? {} : { maxTotalTokens }),
    onLimit,
  };
  if (maxCost !== undefined && price === undefined)
    throw new UsageError(
      '--max-cost needs the prices: --price-input and --price-output (per million tokens)',
    );
  if (hasLimits(limits) && run.engine === 'closed-loop' && onLimit === 'finish')
    throw new UsageError(
      'the closed-loop engine cannot stop sending and let answers finish: add --on-limit cancel, or use --request-rate inf --max-concurrency N',
    );
  const estimateOnly = o['estimate'];
  if (estimateOnly && run.smoke)
    throw new UsageError(
      '--estimate sends nothing, --smoke sends 5 prompts and ends with the estimate they calibrate: use one of them',
    );
  return {
    ...(price === undefined ? {} : { price }),
    estimateOnly,
    limits,
    fullRunPrompts: run.fullRunPrompts,
  };
}
