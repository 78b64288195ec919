// The registry of a run's optional features (the interface is loadgen/feature.ts), in their order: the run starts
// and stops them in it, and it is the order of their keys under the result JSON's "tokenmeter", of their lines
// within a report slot and of their sections on the HTML page. The run, the aggregation, the result JSON, the text
// report, the shard merge, the sweep, and the readers of a saved result (the report, the HTML page, their
// verdicts) go through this list, so none of them names a feature; bench's side of it is loadgen/bench/features.ts.
//
// Adding a feature: write its module in its own folder, exporting one RunFeature (the hooks it needs: at least
// settingsOf and aggregate; start for what it reads beside the run; json, report, html and merge for what it saves,
// shows and merges), and add it below. Read its part back with partOf(result.parts, yourFeature) where another part
// of the code needs it.

import type { JsonValueObject } from '../src/shared/json-object.js';
import { agentSessionsFeature } from './agent/agent-feature.js';
import { breakdownFeature } from './breakdown/breakdown-feature.js';
import { cancellationFeature } from './cancellation/cancellation-feature.js';
import { earlyStopFeature } from './early-stop/early-stop-feature.js';
import type { AnyRunFeature, FeatureParts } from './feature.js';
import { gpuFeature } from './gpu-metrics/gpu-feature.js';
import { sessionsFeature } from './report/session-turns.js';
import { serverMetricsFeature } from './server-metrics/server-metrics-feature.js';

/** The features, each with its own types: bench checks its settings against what each one's settingsOf names. */
export const TYPED_RUN_FEATURES = [
  breakdownFeature,
  sessionsFeature,
  agentSessionsFeature,
  serverMetricsFeature,
  gpuFeature,
  earlyStopFeature,
  cancellationFeature,
] as const;

/** The features, as the backbone iterates them. */
export const RUN_FEATURES: readonly AnyRunFeature[] = TYPED_RUN_FEATURES;

/** The features' parts of a saved result, each read back by its own json.read; a feature the file lacks has none. */
export function partsOfResult(result: JsonValueObject): FeatureParts {
  const parts = new Map<AnyRunFeature, unknown>();
  for (const feature of RUN_FEATURES) {
    const part = feature.json?.read?.(result);
    if (part !== undefined) parts.set(feature, part);
  }
  return parts;
}
