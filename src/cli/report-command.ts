// `tokenmeter report FILE... -o report.html`: an HTML report from saved files. One result file gives a run
// report; a sweep summary gives a sweep report; several result files give a comparison (the first is the
// baseline), like `compare --html`.

import { loadRun } from '../../loadgen/compare/run-records.js';
import { writeHtmlReport } from '../../loadgen/report/html/write-html-report.js';
import { asResult, isResultJson, readJsonFile } from '../../loadgen/report/read-result-file.js';
import { isSweepSummary, sweepFromSummary } from '../../loadgen/report/sweep-data.js';
import type { JsonValue } from '../shared/json-object.js';
import { UsageError, UserFacingError } from '../shared/user-facing-error.js';
import { defineCommand } from './command.js';

const WHAT = 'a result file (--save-result) or a sweep summary';

export const reportCommand = defineCommand({
  usage: [
    'report RESULT.json -o report.html',
    'report SWEEP_SUMMARY.json -o sweep.html',
    'report A.json B.json [...] -o compare.html',
  ],
  options: [
    {
      name: 'output',
      short: 'o',
      type: 'string',
      valueName: 'FILE',
      help: 'Where to write the HTML file (required)',
    },
  ],
  details:
    'The page opens offline (no scripts, no network requests). Per-request charts need the result saved with ' +
    '--save-detailed; without it the report shows the figures and says what is missing.',
  allowPositionals: true,
  async run({ options, positionals }) {
    const output = options['output'];
    if (typeof output !== 'string' || output === '') throw new UsageError('-o/--output FILE is required');
    if (positionals.length === 0)
      throw new UsageError('give a result file, a sweep summary, or several result files');
    const parsed = await Promise.all(positionals.map((path) => readJsonFile(path, WHAT)));
    if (parsed.length === 1) {
      const [path, json] = [positionals[0] as string, parsed[0] as JsonValue];
      if (isResultJson(json)) await writeHtmlReport('run', { result: json, source: path }, output);
      else if (isSweepSummary(json)) await writeHtmlReport('sweep', sweepFromSummary(path, json), output);
      else
        throw new UserFacingError(
          `'${path}' is neither a benchmark result nor a sweep summary; expected ${WHAT}`,
        );
    } else {
      const results = parsed.map((json, i) => asResult(positionals[i] as string, json));
      await writeHtmlReport('compare', { runs: await Promise.all(results.map(loadRun)) }, output);
    }
    process.stdout.write(`Wrote ${output}\n`);
    return 0;
  },
});
