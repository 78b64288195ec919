// The run's cost and why it stopped early, in the report (after our extras: vLLM's block stays byte for byte)
// and in the result JSON (new keys under "tokenmeter": vLLM's keys are left as they are).
import type { ModelPrice } from '../../src/gateway/config/model-prices.js';
import type { JsonValue } from '../../src/shared/json-object.js';
import type { RequestRecord } from '../record.js';
import { padRight } from '../report/python-format.js';
import type { BudgetStop } from './budget.js';
import { formatAmount, formatMoney } from './estimate.js';
import { runCost, usedTokens } from './run-cost.js';

/** What the cost report reads of a run: its records, how many it planned, and the limit that stopped it. */
export interface CostedRun {
  readonly records: readonly RequestRecord[];
  readonly planned: number;
  readonly budgetStop?: BudgetStop;
}

/** A final total this far past the limit is worth a warning and a hint (a few percent is one request's worth). */
const OVERSHOOT_WORTH_SAYING = 1.1;

/** How the run's planned requests ended up when a limit stopped it. */
export interface StopAccounting {
  readonly planned: number;
  /** Written to the server (a record with a send time). */
  readonly sent: number;
  /** Never written: neither a failure nor in the success rate. */
  readonly notSent: number;
  /** Sent, then cut by --on-limit cancel (recorded as client_abort). */
  readonly cancelled: number;
}

export function stopAccounting(result: Pick<CostedRun, 'records' | 'planned'>): StopAccounting {
  const sent = result.records.filter((r) => r.sentAtMs !== null);
  return {
    planned: result.planned,
    sent: sent.length,
    notSent: result.planned - sent.length,
    cancelled: sent.filter((r) => r.outcome === 'client_abort').length,
  };
}

function limitText(stop: BudgetStop, price: ModelPrice | undefined): { limit: string; reached: string } {
  if (stop.limit === 'max_cost') {
    const currency = price?.currency ?? '';
    return {
      limit: `--max-cost ${formatMoney(stop.value, currency)}`,
      reached: formatMoney(stop.reachedAt, currency),
    };
  }
  return { limit: `--max-total-tokens ${stop.value}`, reached: `${stop.reachedAt} tokens` };
}

/** What the whole run used, in the limit's unit: requests in flight when it was reached add to it. */
function finalTotal(stop: BudgetStop, records: CostedRun['records'], price: ModelPrice | undefined): number {
  if (stop.limit === 'max_cost')
    return price === undefined ? stop.reachedAt : runCost(records, price).totalCost;
  return records.reduce((sum, record) => sum + usedTokens(record), 0);
}

/** When the run ended well past its limit: by how much, and how to stop nearer it next time. */
function overshootText(
  stop: BudgetStop,
  result: Pick<CostedRun, 'records'>,
  price: ModelPrice | undefined,
): string {
  const total = finalTotal(stop, result.records, price);
  if (stop.value <= 0 || total < stop.value * OVERSHOOT_WORTH_SAYING) return '';
  const used =
    stop.limit === 'max_cost' ? formatMoney(total, price?.currency ?? '') : `${Math.round(total)} tokens`;
  const hint =
    stop.onLimit === 'cancel'
      ? 'a lower --max-concurrency (or --request-rate) holds fewer requests in flight'
      : '--on-limit cancel cuts the requests in flight when it is reached, and a lower --max-concurrency holds fewer of them';
  return ` Warning: the run used ${used} in all, ${(total / stop.value).toFixed(1)} times the limit, because the requests in flight when it was reached kept spending; to stop nearer the limit, ${hint}.`;
}

/** The cost row (only when priced) and the stop's account (only when a limit stopped the run). */
export function formatCostReport(
  result: Pick<CostedRun, 'records' | 'planned' | 'budgetStop'>,
  price: ModelPrice | undefined,
): string {
  const lines: string[] = [];
  if (price !== undefined) {
    const cost = runCost(result.records, price);
    const cached =
      price.cachedInputPerMillion === undefined
        ? ''
        : `, of which cached ${formatAmount(cost.cachedInputCost)}`;
    lines.push(
      `${padRight(`Run cost (${price.currency}):`, 40)} ${formatAmount(cost.totalCost)} (input ${formatAmount(cost.inputCost)}${cached}, output ${formatAmount(cost.outputCost)})`,
    );
  }
  const stop = result.budgetStop;
  if (stop !== undefined) {
    const n = stopAccounting(result);
    const { limit, reached } = limitText(stop, price);
    const inFlight =
      stop.onLimit === 'cancel'
        ? `${n.cancelled} in flight were cancelled (client_abort)`
        : 'those in flight finished';
    lines.push(
      `Stopped: ${limit} reached (${reached} when it was). ${n.sent} of ${n.planned} requests sent, ${n.notSent} not sent (not failures); ${inFlight}. The figures above describe the part that ran.${overshootText(stop, result, price)}`,
    );
  }
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

/** `tokenmeter.cost` (when priced) and `tokenmeter.budget_stop` (when a limit stopped the run). */
export function costResultJson(
  result: Pick<CostedRun, 'records' | 'planned' | 'budgetStop'>,
  price: ModelPrice | undefined,
): Record<string, JsonValue> {
  const json: Record<string, JsonValue> = {};
  if (price !== undefined) {
    const cost = runCost(result.records, price);
    json['cost'] = {
      currency: cost.currency,
      input_per_million: price.inputPerMillion,
      output_per_million: price.outputPerMillion,
      ...(price.cachedInputPerMillion === undefined
        ? {}
        : { cached_input_per_million: price.cachedInputPerMillion }),
      answered_requests: cost.answered,
      input_tokens: cost.inputTokens,
      cached_input_tokens: cost.cachedInputTokens,
      output_tokens: cost.outputTokens,
      input_cost: cost.inputCost,
      ...(price.cachedInputPerMillion === undefined ? {} : { cached_input_cost: cost.cachedInputCost }),
      output_cost: cost.outputCost,
      total_cost: cost.totalCost,
    };
  }
  const stop = result.budgetStop;
  if (stop !== undefined) {
    const n = stopAccounting(result);
    json['budget_stop'] = {
      limit: stop.limit,
      value: stop.value,
      reached_at: stop.reachedAt,
      on_limit: stop.onLimit,
      planned: n.planned,
      sent: n.sent,
      not_sent: n.notSent,
      cancelled_in_flight: n.cancelled,
    };
  }
  return json;
}
