// A compared run's per-request records, which the intervals and the charts are drawn from: the records file the
// result points to (`tokenmeter.records_file`, relative to the result; every bench run writes one), else the
// per-request arrays of a --save-detailed file (ours or vLLM's, current or 0.8.5: TTFT, TPOT, ITL, E2EL and the
// request counts come from them; the rates need start_times, which 0.8.5 does not write). Files from earlier
// versions, or vLLM's without --save-detailed, have neither: they still compare, on their summary figures,
// without intervals.

import { dirname, resolve } from 'node:path';
import { parseRecordLines } from '../../src/measure/record-lines.js';
import { fileErrorReason, readRegularFile } from '../../src/shared/regular-file.js';
import type { RequestRecord } from '../record.js';
import { implausibleRecord } from '../record-bounds.js';
import type { LoadedResult } from '../report/read-result-file.js';
import { stringField, tokenmeterSection } from '../report/result-fields.js';
import { missingDetail, recordsFromResult } from '../report/result-records.js';

/** Where the records came from, or why there are none. */
export type RunRecords =
  | {
      readonly records: RequestRecord[];
      readonly source: string;
      /** Lines of the records file that were not whole records (torn); 0 for detailed arrays. */
      readonly tornLines?: number;
    }
  | { readonly records: null; readonly missing: string };

/** A result file with its records, as `compare` and the comparison report take it. */
export interface LoadedRun extends LoadedResult {
  readonly records: RunRecords;
}

async function fromRecordsFile(result: LoadedResult, file: string): Promise<RunRecords> {
  const path = resolve(dirname(result.path), file);
  try {
    const lines = parseRecordLines(await readRegularFile(path));
    const records = lines.records as unknown as RequestRecord[];
    if (records.length === 0) return { records: null, missing: `records file ${file} is empty` };
    for (const record of records) {
      const problem = implausibleRecord(record);
      if (problem !== undefined) return { records: null, missing: `records file ${file}: ${problem}` };
    }
    records.sort((a, b) => a.index - b.index);
    return { records, source: `records file ${file}`, tornLines: lines.malformed };
  } catch (error) {
    return { records: null, missing: `cannot read records file ${file}: ${fileErrorReason(error)}` };
  }
}

/** The run's records: its records file, else its detailed arrays, else why there are none. */
export async function loadRun(result: LoadedResult): Promise<LoadedRun> {
  const file = stringField(tokenmeterSection(result.json), 'records_file');
  const fromFile = file === null ? null : await fromRecordsFile(result, file);
  if (fromFile?.records) return { ...result, records: fromFile };
  const detailed = recordsFromResult(result.json);
  if (detailed !== null) {
    const lacks = missingDetail(result.json);
    const source = lacks.length === 0 ? 'detailed arrays' : `detailed arrays: ${lacks.join(', ')}`;
    return { ...result, records: { records: detailed, source } };
  }
  return {
    ...result,
    records: {
      records: null,
      missing:
        fromFile?.missing ??
        'no records file and no detailed arrays (an earlier version, or without --save-detailed)',
    },
  };
}
