// `tokenmeter compare A.json B.json [...]`: runs side by side with deltas from the first ("before", or "local
// vLLM"), their bootstrap intervals from each run's records, and which is better per row beyond the noise.
// --json prints the same comparison as data for scripts; --html also writes the overlay report.
// `tokenmeter compare --pairs gateway.jsonl`: the gateway's records of a mirrored route, primary and mirror paired
// by pairId, compared pair by pair (loadgen/compare/mirror-pairs.ts).

import { compareRuns } from '../../loadgen/compare/compare-runs.js';
import { formatComparison } from '../../loadgen/compare/format-comparison.js';
import { formatPairs } from '../../loadgen/compare/format-pairs.js';
import { comparePairs, type PairedComparison } from '../../loadgen/compare/mirror-pairs.js';
import { loadRun } from '../../loadgen/compare/run-records.js';
import { writeHtmlReport } from '../../loadgen/report/html/write-html-report.js';
import { readResultFile } from '../../loadgen/report/read-result-file.js';
import { parseRecordLines } from '../measure/record-lines.js';
import { fileErrorReason, readRegularFile } from '../shared/regular-file.js';
import { UsageError, UserFacingError } from '../shared/user-facing-error.js';
import { defineCommand } from './command.js';

export const compareCommand = defineCommand({
  usage: [
    'compare BEFORE.json AFTER.json [MORE.json ...] [--json] [--html FILE]',
    'compare --pairs GATEWAY_RECORDS.jsonl [--json] [--html FILE]',
  ],
  options: [
    {
      name: 'pairs',
      type: 'string',
      valueName: 'FILE',
      help: "A gateway records file of a mirrored route: compare each primary with its mirror's copy, pair by pair",
    },
    {
      name: 'json',
      type: 'boolean',
      help: 'Print the comparison as JSON (runs, rows with values and deltas, notes)',
    },
    {
      name: 'html',
      type: 'string',
      valueName: 'FILE',
      help: 'Also write a self-contained HTML report with the runs overlaid',
    },
  ],
  details:
    'The first file is the baseline: every delta is "run minus first", with its percentage and a 95% bootstrap ' +
    "interval from both runs' records; a run is named best only when its difference is beyond the noise. " +
    'Lower is better for latencies, higher for throughput and success. Takes vLLM result files too. ' +
    'With --pairs, the records of a gateway whose route mirrors requests (docs/comparing.md) are paired by ' +
    'pairId and each pair compared; the summary gives the median and mean of the differences (mirror minus ' +
    'primary) with 95% bootstrap intervals over pairs.',
  allowPositionals: true,
  async run({ options, positionals }) {
    const pairs = options['pairs'];
    if (typeof pairs === 'string') {
      if (positionals.length > 0)
        throw new UsageError('--pairs reads one records file: give no result files with it');
      return runPairs(pairs, options['json'], options['html']);
    }
    if (positionals.length < 2) throw new UsageError('give at least two result files to compare');
    const runs = await Promise.all(positionals.map(async (path) => loadRun(await readResultFile(path))));
    const comparison = compareRuns(runs);
    const html = options['html'];
    if (typeof html === 'string' && html !== '') await writeHtmlReport('compare', { runs }, html);
    if (options['json']) process.stdout.write(`${JSON.stringify(comparison, null, 2)}\n`);
    else process.stdout.write(formatComparison(comparison));
    if (typeof html === 'string' && html !== '' && !options['json'])
      process.stdout.write(`\nWrote ${html}\n`);
    return 0;
  },
});

async function readPairs(path: string): Promise<PairedComparison> {
  let text: string;
  try {
    text = await readRegularFile(path);
  } catch (error) {
    throw new UserFacingError(`cannot read the records file '${path}': ${fileErrorReason(error)}`, {
      cause: error,
    });
  }
  return comparePairs(parseRecordLines(text).records);
}

async function runPairs(path: string, json: boolean, html: unknown): Promise<number> {
  const comparison = await readPairs(path);
  const htmlPath = typeof html === 'string' && html !== '' ? html : undefined;
  if (htmlPath !== undefined) await writeHtmlReport('pairs', { comparison }, htmlPath);
  if (json) process.stdout.write(`${JSON.stringify(comparison, null, 2)}\n`);
  else process.stdout.write(formatPairs(comparison));
  if (htmlPath !== undefined && !json) process.stdout.write(`\nWrote ${htmlPath}\n`);
  return comparison.pairs.length > 0 ? 0 : 1;
}
