// What `tokenmeter bench` knows about money and budgets, resolved from its flags (src/cli/bench-cost-settings.ts)
// before anything is sent: the model's price, what to do with it (--estimate), and the limits that stop a run.
import type { ModelPrice } from '../../src/gateway/config/model-prices.js';

export const ON_LIMIT_CHOICES = ['finish', 'cancel'] as const;
/** What happens to requests in flight when a budget limit is reached: they finish, or are cancelled. */
export type OnLimit = (typeof ON_LIMIT_CHOICES)[number];

export interface BudgetLimits {
  /** --max-cost, in the price's currency. */
  readonly maxCost?: number;
  /** --max-total-tokens: prompt + output tokens of answered requests. */
  readonly maxTotalTokens?: number;
  readonly onLimit: OnLimit;
}

export interface CostSettings {
  /** --price-input/--price-output (and --price-cached-input, --currency); undefined = the run is not priced. */
  readonly price?: ModelPrice;
  /** --estimate: predict the run's tokens and cost, send nothing, exit. */
  readonly estimateOnly: boolean;
  readonly limits: BudgetLimits;
  /** The run's --num-prompts before --smoke capped it: what a smoke run's calibrated estimate is for. */
  readonly fullRunPrompts: number;
}

export function hasLimits(limits: BudgetLimits): boolean {
  return limits.maxCost !== undefined || limits.maxTotalTokens !== undefined;
}
