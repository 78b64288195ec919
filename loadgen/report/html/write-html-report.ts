// The one entry point for HTML reports, used by `report` and by `--html` on bench, sweep and compare:
//   writeHtmlReport('run', { result }, path)        result = buildResultJson(..., detailed = true)
//   writeHtmlReport('sweep', sweepData, path)        see sweep-data.ts
//   writeHtmlReport('compare', { runs }, path)       LoadedRun[] (loadRun: a result with its records), the first is the baseline
//   writeHtmlReport('pairs', { comparison }, path)   comparePairs(records of a mirrored route), compare --pairs

import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { UserFacingError } from '../../../src/shared/user-facing-error.js';
import type { SweepReportData } from '../sweep-data.js';
import { type CompareReportData, renderCompareReport } from './compare-report.js';
import { type PairsReportData, renderPairsReport } from './pairs-report.js';
import { type RunReportData, renderRunReport } from './run-report.js';
import { renderSweepReport } from './sweep-report.js';

export interface HtmlReportData {
  run: RunReportData;
  sweep: SweepReportData;
  compare: CompareReportData;
  pairs: PairsReportData;
}

export type HtmlReportKind = keyof HtmlReportData;

export function renderHtmlReport<K extends HtmlReportKind>(kind: K, data: HtmlReportData[K]): string {
  // The casts are safe: `kind` and `data` are tied by HtmlReportData[K].
  if (kind === 'run') return renderRunReport(data as RunReportData);
  if (kind === 'sweep') return renderSweepReport(data as SweepReportData);
  if (kind === 'pairs') return renderPairsReport(data as PairsReportData);
  return renderCompareReport(data as CompareReportData);
}

/** Renders and writes the page (creating the folder); a failed write is a UserFacingError naming the path. */
export async function writeHtmlReport<K extends HtmlReportKind>(
  kind: K,
  data: HtmlReportData[K],
  path: string,
): Promise<void> {
  const html = renderHtmlReport(kind, data);
  try {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, html, 'utf8');
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new UserFacingError(`cannot write the HTML report to '${path}': ${reason}`, { cause: error });
  }
}
