// A run's breakdown: every completed request split (request-breakdown.ts), joined with the gateway's records of
// the run when there are any (--gateway-records), and summed up (breakdown-summary.ts).

import { type GatewaySide, gatewayRecordsByIndex } from '../bench/gateway-timings.js';
import type { RequestRecord } from '../record.js';
import { type BreakdownSummary, summarizeBreakdown } from './breakdown-summary.js';
import { breakDownRun, type RequestBreakdown } from './request-breakdown.js';

export interface RunBreakdown {
  readonly requests: readonly RequestBreakdown[];
  readonly summary: BreakdownSummary;
}

export function runBreakdown(
  records: readonly RequestRecord[],
  gatewayRecords: readonly GatewaySide[],
  requestIdPrefix: string,
): RunBreakdown {
  const requests = breakDownRun(records, gatewayRecordsByIndex(gatewayRecords, requestIdPrefix));
  return { requests, summary: summarizeBreakdown(requests) };
}
