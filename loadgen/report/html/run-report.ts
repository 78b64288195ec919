// The report of one run: what was run, the key figures, the verdicts, where the time went (when the run was
// split into segments: loadgen/breakdown/), then the charts. A file saved without
// --save-detailed has only summary figures, so the page says which charts need the per-request arrays
// instead of drawing guesses from three percentiles.

import type { JsonValueObject } from '../../../src/shared/json-object.js';
import { breakdownFromResult } from '../../breakdown/breakdown-from-result.js';
import { withoutPlannedCancels } from '../../record.js';
import { serverMetricsFromResult } from '../../server-metrics/server-metrics-json.js';
import { interruptionNote } from '../interruption.js';
import { stringField } from '../result-fields.js';
import { recordsFromResult } from '../result-records.js';
import { resultVerdicts } from '../result-verdicts.js';
import { agentPanel } from './agent-panel.js';
import { breakdownOverTimeChart, hasSegmentData, waterfallChart } from './breakdown-charts.js';
import { gpuPanel } from './gpu-panel.js';
import { escapeHtml, keyValueTable, renderPage, section, verdictList } from './page.js';
import { runCharts } from './run-charts.js';
import { figureRows, settingsRows } from './run-settings.js';
import { serverCharts } from './server-charts.js';
import { renderChart } from './svg-chart.js';
import { timelineChart, timelineThresholds } from './timeline-chart.js';

export interface RunReportData {
  /** The result object as written by --save-result (buildResultJson), ideally with detailed arrays. */
  result: JsonValueObject;
  /** Where it came from, shown under the title. */
  source?: string;
}

const INCOMPLETE =
  'This file was saved without --save-detailed, so the TTFT-spread and schedule-lag checks could not be made.';

/** What the section says instead of bars that would be all grey: where the segments come from. */
const NO_SEGMENTS =
  'No segment data: nothing split these requests into segments. Run bench with --gateway-records FILE (a ' +
  "tokenmeter gateway's records) or --span-receiver-port (the server's spans); docs/tracing.md, " +
  '"Where the time goes".';

export function renderRunReport(data: RunReportData): string {
  const { result } = data;
  // Drawn from the records the run's figures were computed on: planned cancellations left out, as in the report.
  const saved = recordsFromResult(result);
  const records = saved === null ? null : withoutPlannedCancels(saved);
  const verdicts = resultVerdicts(result, records);
  const splits = breakdownFromResult(result);
  const server = serverCharts(serverMetricsFromResult(result), records);
  const gpus = gpuPanel(result);
  const agent = agentPanel(result);
  const name = stringField(result, 'label') ?? stringField(result, 'model_id') ?? 'benchmark';
  const about = [
    stringField(result, 'model_id'),
    stringField(result, 'backend'),
    stringField(result, 'date'),
  ];
  const subtitle = [...about.filter((part) => part !== null), data.source].filter(Boolean).join(' · ');
  // A run cut short by Ctrl-C (`tokenmeter.interrupted`) is said first, before any figure is read as a whole run.
  const cutShort = interruptionNote(result);
  const cutShortNote =
    cutShort === null ? '' : `<p class="cut-short">This run was cut short: ${escapeHtml(cutShort)}.</p>`;
  const charts =
    records === null
      ? '<p class="message">No per-request data: run the benchmark with --save-result --save-detailed ' +
        '(or bench --html) to get the distribution and time charts.</p>'
      : `<div class="charts">${runCharts(records).map(renderChart).join('\n')}</div>` +
        `<div class="charts">${timelineChart(records, timelineThresholds(result))}</div>`;
  return renderPage({
    title: `tokenmeter run report: ${name}`,
    subtitle,
    sections: [
      section(
        'Run',
        `${cutShortNote}<div class="panels">${keyValueTable('Settings', settingsRows(result))}` +
          `${keyValueTable('Key figures', figureRows(result))}</div>`,
      ),
      section('Verdicts', verdictList(verdicts.list, verdicts.complete ? undefined : INCOMPLETE)),
      ...(splits === null || splits.length === 0
        ? []
        : [
            section(
              'Where the time went',
              hasSegmentData(splits)
                ? `<div class="charts">${waterfallChart(splits)}\n${breakdownOverTimeChart(splits)}</div>`
                : `<p class="message">${escapeHtml(NO_SEGMENTS)}</p>`,
            ),
          ]),
      ...(agent === null ? [] : [section('Agent sessions', agent)]),
      section('Charts', charts),
      ...(server.length === 0
        ? []
        : [
            section(
              "Server metrics against the client's TTFT",
              `<div class="charts">${server.map(renderChart).join('\n')}</div>`,
            ),
          ]),
      ...(gpus === null ? [] : [section('GPU', gpus)]),
    ],
  });
}
