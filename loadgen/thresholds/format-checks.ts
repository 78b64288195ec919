// The report's "Thresholds" section: one line per threshold, pass or FAIL with the run's figure, after the
// verdicts. The default success floor is shown when it failed or beside thresholds the user set; a run with
// neither prints nothing, so a plain run's report stays as it was.

import { centre } from '../report/python-format.js';
import type { ThresholdCheck } from './check-thresholds.js';
import type { MetricUnit } from './threshold-metrics.js';

function formatValue(value: number | null, unit: MetricUnit): string {
  if (value === null) return 'no data';
  switch (unit) {
    case 'share':
      return `${(value * 100).toFixed(2)}%`;
    case 'requests':
    case 'tokens':
      return `${Number.isInteger(value) ? value : value.toFixed(2)} ${unit}`;
    default:
      return `${value.toFixed(2)} ${unit}`;
  }
}

function checkLine(check: ThresholdCheck): string {
  const verdict = check.passed ? 'pass' : 'FAIL';
  const line = `${verdict}  ${check.threshold.text}: ${formatValue(check.value, check.threshold.metric.unit)}`;
  if (!check.successFloor) return line;
  return `${line} (default success floor${check.passed ? '' : ': the run failed'}; --no-success-floor turns it off)`;
}

export function formatThresholdChecks(checks: readonly ThresholdCheck[]): string {
  const shown = checks.some((c) => !c.successFloor) ? checks : checks.filter((c) => !c.passed);
  if (shown.length === 0) return '';
  return `${[centre('Thresholds', 50, '-'), ...shown.map(checkLine)].join('\n')}\n`;
}
