// --estimate and the line before every priced run: the run's tokens and cost predicted from what it is about to
// send, before anything is sent. Input tokens are the prompts' lengths by the run's tokenizer (the same count
// the run's records and vLLM's "Total input tokens" use). Output tokens are the lengths each request asks for
// (max_tokens: the dataset's reference output, or --*-output-len): an upper bound, reached only when answers run to
// their cap (--ignore-eos on vLLM). A --smoke run measures how much of the requested length the endpoint really
// returned and scales the prediction by that ratio (the calibrated estimate).
import type { ModelPrice } from '../../src/gateway/config/model-prices.js';
import { requestCost } from '../../src/gateway/config/model-prices.js';
import type { SampleRequest } from '../datasets/sample-request.js';
import type { RequestRecord } from '../record.js';

type SampleLengths = Pick<SampleRequest, 'promptTokens' | 'outputTokens'>;

export interface SmokeCalibration {
  /** Output tokens the smoke run's successful answers held / the output tokens those requests asked for. */
  readonly ratio: number;
  /** Successful smoke answers it was measured on. */
  readonly answers: number;
}

export interface RunEstimate {
  readonly requests: number;
  readonly inputTokens: number;
  /** The requested output lengths summed: what the run uses if every answer runs to its cap. */
  readonly requestedOutputTokens: number;
  /** requestedOutputTokens, scaled by the calibration when there is one. */
  readonly outputTokens: number;
  readonly calibration?: SmokeCalibration;
  readonly cost?: { readonly currency: string; readonly input: number; readonly output: number };
}

/** The run's `count` requests go through the samples in order, again and again (as the run cycles them). */
export function estimateRun(
  samples: readonly SampleLengths[],
  count: number,
  price: ModelPrice | undefined,
  calibration?: SmokeCalibration,
): RunEstimate {
  let inputTokens = 0;
  let requestedOutputTokens = 0;
  for (let i = 0; i < count && samples.length > 0; i++) {
    const sample = samples[i % samples.length] as SampleLengths;
    inputTokens += sample.promptTokens;
    requestedOutputTokens += sample.outputTokens;
  }
  const outputTokens =
    calibration === undefined ? requestedOutputTokens : Math.round(requestedOutputTokens * calibration.ratio);
  // What the server's prompt cache will hold is not known before the run: every prompt token is priced at the
  // input price, so with a lower --price-cached-input the estimate is an upper bound on the input cost.
  const cost =
    price === undefined
      ? undefined
      : requestCost(price, { promptTokens: inputTokens, cachedPromptTokens: null, outputTokens });
  return {
    requests: count,
    inputTokens,
    requestedOutputTokens,
    outputTokens,
    ...(calibration === undefined ? {} : { calibration }),
    ...(cost === undefined
      ? {}
      : {
          cost: { currency: cost.currency ?? '', input: cost.costInput ?? 0, output: cost.costOutput ?? 0 },
        }),
  };
}

/** From a smoke run: its successful answers' output tokens against what they asked for. Undefined without one. */
export function calibrateOnSmoke(
  records: readonly RequestRecord[],
  samples: readonly SampleLengths[],
): SmokeCalibration | undefined {
  let asked = 0;
  let got = 0;
  let answers = 0;
  for (const record of records) {
    const sample = samples[record.index % samples.length];
    if (record.outcome !== 'ok' || sample === undefined) continue;
    asked += sample.outputTokens;
    got += record.outputTokens;
    answers++;
  }
  return answers === 0 || asked === 0 ? undefined : { ratio: got / asked, answers };
}

// Built at first use, not at import: a number format loads ICU's locale data, about 12 ms of CPU on this machine,
// and every bench command imports this module whether or not it prints money.
let moneyFormat: Intl.NumberFormat | undefined;
let countFormat: Intl.NumberFormat | undefined;
const MONEY = {
  format(n: number): string {
    moneyFormat ??= new Intl.NumberFormat('en-US', { maximumSignificantDigits: 4 });
    return moneyFormat.format(n);
  },
};
const COUNT = {
  format(n: number): string {
    countFormat ??= new Intl.NumberFormat('en-US');
    return countFormat.format(n);
  },
};

/** Four significant digits: a run's cost can be a fraction of a cent. */
export function formatAmount(amount: number): string {
  return MONEY.format(amount);
}

export function formatMoney(amount: number, currency: string): string {
  return `${formatAmount(amount)} ${currency}`;
}

/** One line, for stderr before a run and for --estimate's answer. */
export function formatEstimate(estimate: RunEstimate): string {
  const calibration = estimate.calibration;
  const head =
    calibration === undefined
      ? 'estimate'
      : `estimate (calibrated on ${calibration.answers} smoke answers, which returned ${MONEY.format(calibration.ratio)} of the output tokens they asked for)`;
  const output =
    calibration === undefined
      ? `up to ${COUNT.format(estimate.outputTokens)} output tokens (the lengths asked for)`
      : `${COUNT.format(estimate.outputTokens)} output tokens`;
  const cost = estimate.cost;
  const money =
    cost === undefined
      ? '; no price (--price-input, --price-output)'
      : `; cost ${calibration === undefined ? 'up to ' : ''}${formatMoney(cost.input + cost.output, cost.currency)} (input ${formatMoney(cost.input, cost.currency)}, output ${formatMoney(cost.output, cost.currency)})`;
  return `${head}: ${COUNT.format(estimate.requests)} requests, ${COUNT.format(estimate.inputTokens)} input tokens, ${output}${money}`;
}
