// The report of one run: what was run, the key figures, the verdicts, the features' sections before the charts
// (where the time went, when the run was split into segments), the charts, then the features' sections after them
// (the server's metrics, the GPUs), each from its part read back from the file (loadgen/features.ts). A file saved
// without --save-detailed has only summary figures, so the page says which charts need the per-request arrays
// instead of drawing guesses from three percentiles.

import { isJsonObject, type JsonValueObject } from '../../../src/shared/json-object.js';
import { agentSessionsFeature } from '../../agent/agent-feature.js';
import { agentSessionLines } from '../../agent/session-figures.js';
import type { PageContext, PageSlot } from '../../feature.js';
import { partsOfResult, RUN_FEATURES } from '../../features.js';
import { withoutPlannedCancels } from '../../record.js';
import { interruptionNote } from '../interruption.js';
import { numberField, stringField } from '../result-fields.js';
import { recordsFromResult } from '../result-records.js';
import { resultVerdicts } from '../result-verdicts.js';
import { escapeHtml, keyValueTable, renderPage, section, verdictList } from './page.js';
import { runCharts } from './run-charts.js';
import { figureRows, settingsRows } from './run-settings.js';
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

export function renderRunReport(data: RunReportData): string {
  const { result } = data;
  // Drawn from the records the run's figures were computed on: planned cancellations left out, as in the report.
  const saved = recordsFromResult(result);
  const records = saved === null ? null : withoutPlannedCancels(saved);
  const verdicts = resultVerdicts(result, records);
  const parts = partsOfResult(result);
  const context: PageContext = { records, outputTokens: numberField(result, 'total_output_tokens') ?? 0 };
  const featureSections = (slot: PageSlot): string[] =>
    RUN_FEATURES.flatMap((feature) => {
      const part = parts.get(feature);
      const shown =
        part === undefined || feature.html?.slot !== slot ? undefined : feature.html.section(part, context);
      return shown === undefined ? [] : [section(shown.heading, shown.body)];
    });
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
      ...featureSections('before-charts'),
      ...(agent === null ? [] : [section('Agent sessions', agent)]),
      section('Charts', charts),
      ...featureSections('after-charts'),
    ],
  });
}

// ---- agent panel ----
// The run report's Agent sessions section (an agent replay's run: bench --dataset-name agentic): the per-session
// figures saved under tokenmeter.agent_sessions, and TTFT by turn number from tokenmeter.sessions, each as a table.
// Null for any other run.

/** One text row's label and value ("Session duration (ms, p50 / p99):  993.63 / 1034.03"). */
function rowOf(line: string): readonly [string, string] {
  const colon = line.indexOf(':');
  return [line.slice(0, colon), line.slice(colon + 1).trim()];
}

function turnRows(result: JsonValueObject): (readonly [string, string])[] {
  const tokenmeter = result['tokenmeter'];
  const sessions = isJsonObject(tokenmeter) ? tokenmeter['sessions'] : undefined;
  const turns = isJsonObject(sessions) && Array.isArray(sessions['turns']) ? sessions['turns'] : [];
  const ms = (value: unknown): string => (typeof value === 'number' ? value.toFixed(2) : '-');
  const objects = turns.filter((t): t is JsonValueObject => isJsonObject(t));
  return objects.map((t): readonly [string, string] => [
    `Turn ${String(t['turn'])} (${String(t['completed'])}/${String(t['requests'])} ok)`,
    `${ms(t['p50_ttft_ms'])} / ${ms(t['p99_ttft_ms'])}`,
  ]);
}

function agentPanel(result: JsonValueObject): string | null {
  const figures = agentSessionsFeature.json?.read?.(result);
  if (figures === undefined) return null;
  const turns = turnRows(result);
  return (
    `<div class="panels">${keyValueTable('Per session', agentSessionLines(figures).map(rowOf))}` +
    `${turns.length === 0 ? '' : keyValueTable('TTFT by turn (ms, p50 / p99)', turns)}</div>`
  );
}
