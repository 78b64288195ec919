// The report of one run, with the gateway's view added when its records file was given.

import { formatBenchReport } from './bench-report.js';
import { compareWithGateway, readGatewayRecords } from './gateway-timings.js';
import type { BenchRunResult } from './run-bench.js';
import type { BenchSettings } from './settings.js';

export function loadgenSummaryFor(result: BenchRunResult, settings: BenchSettings): string {
  const gateway =
    settings.gatewayRecords === undefined
      ? undefined
      : compareWithGateway(
          result.records,
          readGatewayRecords(settings.gatewayRecords),
          settings.requestIdPrefix,
          settings.metricPercentiles,
        );
  return formatBenchReport(result, settings, gateway);
}
