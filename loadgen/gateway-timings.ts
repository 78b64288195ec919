// When the target is a tokenmeter gateway, its own record of each request (by x-request-id, which we set to
// `{prefix}{index}`) gives the gateway's view of the same request: TTFT from when the request reached the
// gateway. Client TTFT minus gateway TTFT is what the network between client and gateway and the gateway's
// own request handling add. The records come from the gateway's records file (`tokenmeter serve --records`) or,
// in-process, from its record listener.

import type { RequestRecord as GatewayRecord } from '../src/gateway/records/record.js';
import { readRecordsText } from '../src/measure/record-files.js';
import { parseRecordLines } from '../src/measure/record-lines.js';
import { fileErrorReason } from '../src/shared/regular-file.js';
import { UserFacingError } from '../src/shared/user-facing-error.js';
import { type MetricStats, metricStats } from './metrics/numpy-stats.js';
import type { RequestRecord } from './record.js';

/** The fields used here; a records file from another version of the gateway may have more. */
export type GatewaySide = Pick<
  GatewayRecord,
  | 'requestId'
  | 'ttftMs'
  | 'e2eMs'
  | 'lastTokenMs'
  | 'outcome'
  | 'gatewayOverheadMs'
  | 'upstreamRequestMs'
  | 'server'
>;

export interface GatewayComparison {
  matched: number;
  clientTtft: MetricStats;
  gatewayTtft: MetricStats;
  /** Per request: client TTFT - gateway TTFT. */
  addedTtft: MetricStats;
  clientE2el: MetricStats;
  gatewayE2el: MetricStats;
  gatewayOverhead: MetricStats;
}

export function readGatewayRecords(path: string): GatewaySide[] {
  let text: string;
  try {
    text = readRecordsText(path);
  } catch (error) {
    throw new UserFacingError(`--gateway-records ${path}: ${fileErrorReason(error)}`, { cause: error });
  }
  // A torn last line while the gateway is still writing is skipped; 0.1's files read alike.
  const { records } = parseRecordLines(text);
  return records.filter((value) => typeof value['requestId'] === 'string') as unknown as GatewaySide[];
}

/** The gateway's records of this run, by the index their x-request-id (`{prefix}{index}`) names. */
export function gatewayRecordsByIndex(
  gateway: readonly GatewaySide[],
  requestIdPrefix: string,
): Map<number, GatewaySide> {
  const byIndex = new Map<number, GatewaySide>();
  for (const g of gateway) {
    if (!g.requestId.startsWith(requestIdPrefix)) continue;
    const index = Number(g.requestId.slice(requestIdPrefix.length));
    if (Number.isInteger(index)) byIndex.set(index, g);
  }
  return byIndex;
}

export function compareWithGateway(
  records: readonly RequestRecord[],
  gateway: readonly GatewaySide[],
  requestIdPrefix: string,
  percentiles: readonly number[],
): GatewayComparison | undefined {
  const byIndex = gatewayRecordsByIndex(gateway, requestIdPrefix);
  const client: number[] = [];
  const side: number[] = [];
  const added: number[] = [];
  const clientE2el: number[] = [];
  const gatewayE2el: number[] = [];
  const overhead: number[] = [];
  for (const r of records) {
    const g = byIndex.get(r.index);
    if (g === undefined || r.outcome !== 'ok' || r.ttftMs === null || g.ttftMs === null) continue;
    client.push(r.ttftMs);
    side.push(g.ttftMs);
    added.push(r.ttftMs - g.ttftMs);
    if (r.lastTokenMs !== null && g.lastTokenMs !== null) {
      clientE2el.push(r.lastTokenMs);
      gatewayE2el.push(g.lastTokenMs);
    }
    overhead.push(g.gatewayOverheadMs);
  }
  if (client.length === 0) return undefined;
  return {
    matched: client.length,
    clientTtft: metricStats(client, percentiles),
    gatewayTtft: metricStats(side, percentiles),
    addedTtft: metricStats(added, percentiles),
    clientE2el: metricStats(clientE2el, percentiles),
    gatewayE2el: metricStats(gatewayE2el, percentiles),
    gatewayOverhead: metricStats(overhead, percentiles),
  };
}
