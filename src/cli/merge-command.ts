// `tokenmeter merge FILES|DIR`: one run's shards (bench --shard / --shard-count, each saved with --save-result)
// back into one run: vLLM's summary, our extras and verdicts, each shard's host and schedule lag, computed from the
// union of the shards' raw records; --save-result writes the merged result and its records file (so compare and
// report take it like any run), --html its page.

import { writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { writeRecordsFile } from '../../loadgen/bench/records-file.js';
import { recordsBesideResult } from '../../loadgen/bench/save-result.js';
import {
  parseGoodput,
  parseMetricPercentiles,
  parsePercentileMetrics,
} from '../../loadgen/metrics/metric-options.js';
import { writeHtmlReport } from '../../loadgen/report/html/write-html-report.js';
import { resultFileName, resultJsonText } from '../../loadgen/report/result-json.js';
import { formatMergedReport, mergedResultJson, mergedRun } from '../../loadgen/shards/merged-run.js';
import { readShardRuns } from '../../loadgen/shards/shard-results.js';
import type { OptionSpec } from '../shared/option-schema.js';
import { UsageError } from '../shared/user-facing-error.js';
import { RESULT_OPTIONS } from './bench-options.js';
import { defineCommand, EXIT_OK, EXIT_RUN_FAILED } from './command.js';

const say = (line: string): void => void process.stderr.write(`${line}\n`);

/** bench's flags that mean the same for a merged run. */
const MERGE_OPTIONS: readonly OptionSpec[] = RESULT_OPTIONS.filter((spec) =>
  [
    'save-result',
    'save-detailed',
    'html',
    'result-dir',
    'result-filename',
    'percentile-metrics',
    'metric-percentiles',
    'goodput',
  ].includes(spec.name),
);

const ALLOW_PARTIAL: OptionSpec = {
  name: 'allow-partial',
  type: 'boolean',
  help: 'Merge even with a shard missing, torn lines, records of another shard or a request recorded twice: the whole rest is merged and each problem said',
};

export const mergeCommand = defineCommand({
  usage: ['merge SHARD.json [...] [--save-result] [--html FILE]', 'merge DIR [--save-result] [--html FILE]'],
  options: [...MERGE_OPTIONS, ALLOW_PARTIAL],
  details:
    "Give each shard's result file, or the folder holding them; each points at its records file. Percentiles are " +
    'computed over every request of every shard, never averaged. See docs/loadgen.md, "Sharded runs".',
  allowPositionals: true,
  async run({ options, positionals }) {
    if (positionals.length === 0)
      throw new UsageError("give the shards' result files, or the folder holding them");
    const text = (name: string): string | undefined => {
      const v = options[name];
      return typeof v === 'string' ? v : undefined;
    };
    const goodput = Array.isArray(options['goodput']) ? options['goodput'] : [];
    const merged = mergedRun(
      await readShardRuns(positionals),
      {
        percentileMetrics: parsePercentileMetrics(text('percentile-metrics') ?? 'ttft,tpot,itl'),
        metricPercentiles: parseMetricPercentiles(text('metric-percentiles') ?? '99'),
        ...(goodput.length === 0 ? {} : { goodput: parseGoodput(goodput) }),
        allowPartial: options['allow-partial'] === true,
      },
      new Date(),
    );
    process.stdout.write(formatMergedReport(merged));
    const detailed = options['save-detailed'] === true;
    if (options['save-result'] === true || detailed) {
      const path = join(text('result-dir') ?? '.', text('result-filename') ?? resultFileName(merged.run));
      const recordsPath = recordsBesideResult(path);
      await writeRecordsFile(recordsPath, merged.records);
      const json = mergedResultJson(merged, detailed, relative(dirname(path), recordsPath));
      writeFileSync(path, `${resultJsonText(json, 2)}\n`);
      say(`records: ${recordsPath}`);
      say(`result: ${path}`);
    }
    const html = text('html');
    if (html !== undefined) {
      await writeHtmlReport('run', { result: mergedResultJson(merged, true) }, html);
      say(`report: ${html}`);
    }
    return merged.metrics.completed === 0 ? EXIT_RUN_FAILED : EXIT_OK;
  },
});
