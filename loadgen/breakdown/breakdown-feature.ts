// Where each completed request's time went, as a run feature (loadgen/feature.ts): every measured request split
// (request-breakdown.ts), joined with the gateway's records of the run when there are any (those the caller holds,
// else the file --gateway-records names, read as the run ends), summed up (breakdown-summary.ts), saved as
// `tokenmeter.breakdown` (breakdown-json.ts) and shown in the report's breakdown section (breakdown-section.ts). A
// merged run's breakdown is computed again from the union's records, as one process's is.

import type { RunFeature } from '../feature.js';
import { type GatewaySide, gatewayRecordsByIndex, readGatewayRecords } from '../gateway-timings.js';
import type { RequestRecord } from '../record.js';
import { breakdownFromResult } from './breakdown-from-result.js';
import { breakdownKeys } from './breakdown-json.js';
import { formatBreakdownSection } from './breakdown-section.js';
import { type RunBreakdown, summarizeBreakdown } from './breakdown-summary.js';
import { breakDownRun } from './request-breakdown.js';

/** What the breakdown needs of the run's settings. */
export interface BreakdownSettings {
  /** A tokenmeter gateway's records file (--gateway-records). */
  readonly gatewayRecords?: string;
  /** x-request-id of request i is `${requestIdPrefix}${i}`: how the gateway's records are matched. */
  readonly requestIdPrefix: string;
}

export function runBreakdown(
  records: readonly RequestRecord[],
  gatewayRecords: readonly GatewaySide[],
  requestIdPrefix: string,
): RunBreakdown {
  const requests = breakDownRun(records, gatewayRecordsByIndex(gatewayRecords, requestIdPrefix));
  return { requests, summary: summarizeBreakdown(requests) };
}

export const breakdownFeature: RunFeature<BreakdownSettings, RunBreakdown> = {
  name: 'breakdown',
  aggregate(settings, records) {
    if (settings === undefined) return undefined;
    const gateway =
      records.gatewayRecords ??
      (settings.gatewayRecords === undefined ? [] : readGatewayRecords(settings.gatewayRecords));
    return runBreakdown(records.measured, gateway, settings.requestIdPrefix);
  },
  json: {
    write: breakdownKeys,
    read(result) {
      const requests = breakdownFromResult(result);
      return requests === null ? undefined : { requests, summary: summarizeBreakdown(requests) };
    },
  },
  report: { slot: 'section', lines: (breakdown) => formatBreakdownSection(breakdown.summary) },
};
