// Bench's side of the features' registry (loadgen/features.ts): the list typed against BenchSettings, so that a
// feature whose settingsOf names a field BenchSettings lacks, or types otherwise, does not compile; and the
// features' keys, lines and stop reason of a bench run, each in the registry's order.

import type { JsonValue } from '../../src/shared/json-object.js';
import type { FeatureParts, ReportContext, ReportSlot, RunFeature } from '../feature.js';
import { TYPED_RUN_FEATURES } from '../features.js';
import type { BenchSettings } from './settings.js';

/** A feature as bench runs it: its settings taken out of BenchSettings. */
// biome-ignore lint/suspicious/noExplicitAny: the registry holds features of every settings and part type.
export type BenchFeature = RunFeature<any, any, any, BenchSettings>;

export const BENCH_FEATURES: readonly BenchFeature[] = TYPED_RUN_FEATURES;

/** The features' keys under the result JSON's "tokenmeter", in the registry's order. */
export function featureKeys(parts: FeatureParts, detailed: boolean): Record<string, JsonValue> {
  const keys: Record<string, JsonValue> = {};
  for (const feature of BENCH_FEATURES) {
    const part = parts.get(feature);
    if (part !== undefined && feature.json !== undefined)
      Object.assign(keys, feature.json.write(part, detailed));
  }
  return keys;
}

/** The features' lines at one slot of the text report, in the registry's order. */
export function featureLines(parts: FeatureParts, slot: ReportSlot, context: ReportContext): string[] {
  return BENCH_FEATURES.flatMap((feature) => {
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
  for (const feature of BENCH_FEATURES) {
    const part = parts.get(feature);
    const reason = part === undefined ? undefined : feature.stopReason?.(part);
    if (reason !== undefined) return reason;
  }
  return undefined;
}
