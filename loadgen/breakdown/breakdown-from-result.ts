// The splits of a saved run, rebuilt from `tokenmeter.breakdown`'s per-request arrays (breakdown-json.ts), so
// `tokenmeter report` draws and judges exactly what bench computed. Null when the file has no breakdown arrays
// (saved without --save-detailed, or before the breakdown existed).

import { isJsonObject, type JsonValueObject } from '../../src/shared/json-object.js';
import { tokenmeterSection } from '../report/result-fields.js';
import { BASIS_KEYS, segmentKey } from './breakdown-json.js';
import { assembleSplit, type RequestBreakdown, type SplitBasis } from './request-breakdown.js';
import { SEGMENT_NAMES, type SegmentName } from './segments.js';

function numberAt(list: unknown, i: number): number | null {
  if (!Array.isArray(list)) return null;
  const value = list[i];
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

export function breakdownFromResult(json: JsonValueObject): RequestBreakdown[] | null {
  const saved = tokenmeterSection(json)['breakdown'];
  if (!isJsonObject(saved) || !Array.isArray(saved['index'])) return null;
  const splits: RequestBreakdown[] = [];
  for (let i = 0; i < saved['index'].length; i++) {
    const basis: Partial<Record<keyof SplitBasis, number>> = {};
    for (const [key, field] of Object.entries(BASIS_KEYS)) {
      const value = numberAt(saved[key], i);
      if (value !== null) basis[field] = value;
    }
    if (Object.keys(basis).length !== Object.keys(BASIS_KEYS).length) continue;
    const segments = Object.fromEntries(
      SEGMENT_NAMES.map((name) => [name, numberAt(saved[segmentKey(name)], i)]),
    ) as Record<SegmentName, number | null>;
    splits.push(assembleSplit(basis as SplitBasis, segments));
  }
  return splits;
}
