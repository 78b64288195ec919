// The one reader of record files: JSON Lines written by the gateway (`tokenmeter serve --records`) or the load
// generator (`tokenmeter bench`, its records file), by this version or by 0.1. A blank line is skipped; a line that
// is not a JSON object (a torn last line while the writer is still writing, or after a crash) is counted, never
// fatal. 0.1's names are read as today's, so every caller sees one vocabulary.
import { isJsonObject } from '../shared/json-object.js';
import { outcomeNamed } from './outcome.js';

export type RecordObject = Record<string, unknown>;

export interface RecordLines {
  readonly records: RecordObject[];
  /** Lines that were not a JSON object. */
  readonly malformed: number;
}

/** 0.1's field names, by the name that replaced each (docs/metrics.md, "Changed names"). */
export const RENAMED_FIELDS: Readonly<Record<string, string>> = Object.freeze({
  completionTokens: 'outputTokens',
  completionTokensSource: 'outputTokensSource',
  gapsMs: 'itlMs',
  e2elMs: 'lastTokenMs',
  chunkCount: 'contentChunks',
});

/** A record with 0.1's names and outcome words replaced by today's; a record already current is returned as is. */
export function currentRecord(record: RecordObject): RecordObject {
  let upgraded: RecordObject | undefined;
  for (const [old, current] of Object.entries(RENAMED_FIELDS)) {
    if (!(old in record) || current in record) continue;
    upgraded ??= { ...record };
    upgraded[current] = upgraded[old];
    delete upgraded[old];
  }
  const outcome = outcomeNamed(record['outcome']);
  if (outcome !== undefined && outcome !== record['outcome']) {
    upgraded ??= { ...record };
    upgraded['outcome'] = outcome;
  }
  return upgraded ?? record;
}

export function parseRecordLines(text: string): RecordLines {
  const records: RecordObject[] = [];
  let malformed = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      malformed++;
      continue;
    }
    if (isJsonObject(value)) {
      records.push(currentRecord(value as RecordObject));
    } else {
      malformed++;
    }
  }
  return { records, malformed };
}
