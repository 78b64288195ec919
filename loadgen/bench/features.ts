// The registry of a bench run's optional features (the interface is loadgen/feature.ts): each line is one feature
// module and where its settings are in BenchSettings (undefined = the run does not use it). The run starts and
// stops them in this order, the aggregation asks each for its part, and the result JSON, the text report, the
// shard merge and the sweep go through this list; their order here is the order of their keys under "tokenmeter"
// and of their lines within a report slot.
//
// Adding a feature: write its module in its own folder, exporting one RunFeature<Settings, Part, Live> (the hooks it
// needs: at least aggregate; start for what it reads beside the run; json, report and merge for what it saves, shows
// and merges), and add `register(yourFeature, (s) => s.yourSettings)` below, where undefined means off. Nothing else
// in the run, the report, the result JSON, the shard merge or the sweep changes; read its part back with
// partOf(result.parts, yourFeature) where another part of the code needs it.

import type { JsonValue } from '../../src/shared/json-object.js';
import { agentSessionsFeature } from '../agent/agent-feature.js';
import { breakdownFeature } from '../breakdown/breakdown-feature.js';
import { cancellationFeature } from '../cancellation/cancellation-feature.js';
import { earlyStopFeature } from '../early-stop/early-stop-feature.js';
import { stopsEarly } from '../early-stop/early-stop-settings.js';
import type { AnyRunFeature, FeatureParts, ReportContext, ReportSlot, RunFeature } from '../feature.js';
import { gpuFeature } from '../gpu-metrics/gpu-feature.js';
import { sessionsFeature } from '../report/session-turns.js';
import { serverMetricsFeature } from '../server-metrics/server-metrics-feature.js';
import type { BenchSettings } from './settings.js';

export interface RegisteredFeature {
  readonly feature: AnyRunFeature;
  /** The feature's settings in the run's settings; undefined when the run does not use it. */
  settingsOf(settings: BenchSettings): unknown;
}

function register<Settings>(
  // biome-ignore lint/suspicious/noExplicitAny: any part and live types.
  feature: RunFeature<Settings, any, any>,
  settingsOf: (settings: BenchSettings) => Settings | undefined,
): RegisteredFeature {
  return { feature, settingsOf };
}

export const BENCH_FEATURES: readonly RegisteredFeature[] = [
  register(breakdownFeature, (s) => ({
    requestIdPrefix: s.requestIdPrefix,
    ...(s.gatewayRecords === undefined ? {} : { gatewayRecords: s.gatewayRecords }),
  })),
  register(sessionsFeature, (s) => s.sessions),
  register(agentSessionsFeature, (s) => s.agent),
  register(serverMetricsFeature, (s) => s.serverMetrics ?? undefined),
  register(gpuFeature, (s) => s.gpuMetrics ?? undefined),
  register(earlyStopFeature, (s) => (stopsEarly(s.earlyStop) ? s.earlyStop : undefined)),
  register(cancellationFeature, (s) => s.cancellation),
];

/** The features' keys under the result JSON's "tokenmeter", in the registry's order. */
export function featureKeys(parts: FeatureParts, detailed: boolean): Record<string, JsonValue> {
  const keys: Record<string, JsonValue> = {};
  for (const { feature } of BENCH_FEATURES) {
    const part = parts.get(feature);
    if (part !== undefined && feature.json !== undefined)
      Object.assign(keys, feature.json.write(part, detailed));
  }
  return keys;
}

/** The features' lines at one slot of the text report, in the registry's order. */
export function featureLines(parts: FeatureParts, slot: ReportSlot, context: ReportContext): string[] {
  return BENCH_FEATURES.flatMap(({ feature }) => {
    const part = parts.get(feature);
    return part === undefined || feature.report?.slot !== slot ? [] : feature.report.lines(part, context);
  });
}

/** The features' lines at a slot as report text: each line ended, nothing when there are none. */
export function featureText(parts: FeatureParts, slot: ReportSlot, context: ReportContext): string {
  return featureLines(parts, slot, context)
    .map((line) => `${line}\n`)
    .join('');
}

/** Why a feature stopped the run because its answer was known, when one did. */
export function stopReasonOf(parts: FeatureParts): string | undefined {
  for (const { feature } of BENCH_FEATURES) {
    const part = parts.get(feature);
    const reason = part === undefined ? undefined : feature.stopReason?.(part);
    if (reason !== undefined) return reason;
  }
  return undefined;
}
