// `tokenmeter compare A.json B.json [...]`: runs side by side with deltas from the first ("before", or "local
// vLLM"), their bootstrap intervals from each run's records, and which is better per row beyond the noise.
// --json prints the same comparison as data for scripts; --html also writes the overlay report.

import { compareRuns } from '../../loadgen/compare/compare-runs.js';
import { formatComparison } from '../../loadgen/compare/format-comparison.js';
import { loadRun } from '../../loadgen/compare/run-records.js';
import { writeHtmlReport } from '../../loadgen/report/html/write-html-report.js';
import { readResultFile } from '../../loadgen/report/read-result-file.js';
import { UsageError } from '../shared/usage-error.js';
import type { Command } from './command.js';

export const compareCommand: Command = {
  name: 'compare',
  summary:
    'Compare saved benchmark results side by side: deltas with confidence intervals, and which run is better',
  usage: ['compare BEFORE.json AFTER.json [MORE.json ...] [--json] [--html FILE]'],
  options: [
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
    'Lower is better for latencies, higher for throughput and success. Takes vLLM result files too.',
  allowPositionals: true,
  async run({ options, positionals }) {
    if (positionals.length < 2) throw new UsageError('give at least two result files to compare');
    const runs = await Promise.all(positionals.map(async (path) => loadRun(await readResultFile(path))));
    const comparison = compareRuns(runs);
    const html = options['html'];
    if (typeof html === 'string' && html !== '') await writeHtmlReport('compare', { runs }, html);
    if (options['json'] === true) process.stdout.write(`${JSON.stringify(comparison, null, 2)}\n`);
    else process.stdout.write(formatComparison(comparison));
    if (typeof html === 'string' && html !== '' && options['json'] !== true)
      process.stdout.write(`\nWrote ${html}\n`);
    return 0;
  },
};
