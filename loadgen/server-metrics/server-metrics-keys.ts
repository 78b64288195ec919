// The result JSON's keys for what the server said and why a run stopped early, beside the cost's and the
// breakdown's under "tokenmeter".

import type { JsonValue } from '../../src/shared/json-object.js';
import type { EarlyStop } from '../early-stop/early-stop.js';
import { SERVER_METRICS_KEY, type ServerMetricsRun, serverMetricsJson } from './server-metrics-json.js';

export const EARLY_STOP_KEY = 'early_stop';

export function earlyStopJson(stop: EarlyStop): JsonValue {
  return {
    reason: stop.reason,
    at_s: Number(stop.atS.toFixed(3)),
    window_s: stop.windowS,
    message: stop.message,
    figures: { ...stop.figures },
  };
}

export function serverMetricsKeys(result: {
  readonly serverMetrics?: ServerMetricsRun;
  readonly earlyStop?: EarlyStop;
}): Record<string, JsonValue> {
  return {
    ...(result.serverMetrics === undefined
      ? {}
      : { [SERVER_METRICS_KEY]: serverMetricsJson(result.serverMetrics) }),
    ...(result.earlyStop === undefined ? {} : { [EARLY_STOP_KEY]: earlyStopJson(result.earlyStop) }),
  };
}
