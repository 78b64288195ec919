// A run's breakdown: every completed request split (request-breakdown.ts), joined with the gateway's records of
// the run when there are any (--gateway-records), and summed up (breakdown-summary.ts).

import { type GatewaySide, gatewayRecordsByIndex, readGatewayRecords } from '../bench/gateway-timings.js';
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

/**
 * A bench run's breakdown, with the gateway's records: those the caller holds, else the file --gateway-records
 * names, read as the run ends.
 */
export function benchBreakdown(
  records: readonly RequestRecord[],
  settings: { readonly gatewayRecords?: string; readonly requestIdPrefix: string },
  heldGatewayRecords?: readonly GatewaySide[],
): RunBreakdown {
  const gateway =
    heldGatewayRecords ??
    (settings.gatewayRecords === undefined ? [] : readGatewayRecords(settings.gatewayRecords));
  return runBreakdown(records, gateway, settings.requestIdPrefix);
}
