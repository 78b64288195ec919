// --max-cost and --max-total-tokens: a running total of what the run's answered requests used, checked as each
// request finishes (only then are its output tokens known). The first limit reached stops the run: nothing more
// is sent, and requests then in flight finish or are cancelled (--on-limit), so the final total may pass the
// limit by what those requests used; the report says by how much.
import type { ModelPrice } from '../../src/gateway/config/model-prices.js';
import type { RequestRecord } from '../record.js';
import type { BudgetLimits } from './cost-settings.js';
import { recordCost, usedTokens } from './run-cost.js';

export type BudgetLimitName = 'max_cost' | 'max_total_tokens';

/** Why a run stopped early, for the report and the result JSON. */
export interface BudgetStop {
  readonly limit: BudgetLimitName;
  /** The limit as given (currency units or tokens). */
  readonly value: number;
  /** The total when it was reached (the request that reached it included). */
  readonly reachedAt: number;
  readonly onLimit: BudgetLimits['onLimit'];
}

export class RunBudget {
  readonly #limits: BudgetLimits;
  readonly #price: ModelPrice | undefined;
  #cost = 0;
  #tokens = 0;
  #stop: BudgetStop | undefined;

  /** `price` is needed for --max-cost (the flags refuse one without the other). */
  constructor(limits: BudgetLimits, price: ModelPrice | undefined) {
    this.#limits = limits;
    this.#price = price;
  }

  get stop(): BudgetStop | undefined {
    return this.#stop;
  }

  /** Adds a finished request; returns the stop the first time a limit is reached. */
  add(record: RequestRecord): BudgetStop | undefined {
    if (this.#price !== undefined) this.#cost += recordCost(record, this.#price);
    this.#tokens += usedTokens(record);
    if (this.#stop !== undefined) return undefined;
    const { maxCost, maxTotalTokens, onLimit } = this.#limits;
    if (maxCost !== undefined && this.#cost >= maxCost)
      this.#stop = { limit: 'max_cost', value: maxCost, reachedAt: this.#cost, onLimit };
    else if (maxTotalTokens !== undefined && this.#tokens >= maxTotalTokens)
      this.#stop = { limit: 'max_total_tokens', value: maxTotalTokens, reachedAt: this.#tokens, onLimit };
    return this.#stop;
  }
}
