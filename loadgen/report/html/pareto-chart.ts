// The sweep's Pareto chart, as vLLM's sweep tools and AIPerf draw it: each level's output throughput (all users)
// against its interactivity (output tokens per second one user sees, 1000 / mean TPOT), with the frontier: the
// levels no other level beats on both. Moving along the frontier trades one user's speed for the server's total;
// a level below it is dominated and never the better setting.

import type { SweepReportLevel } from '../sweep-data.js';
import type { ChartSpec, Point } from './svg-chart.js';

/** Each level with both figures as (interactivity, throughput). */
export function paretoPoints(levels: readonly SweepReportLevel[]): Point[] {
  return levels.flatMap((l) =>
    l.tpotMeanMs !== null && l.tpotMeanMs > 0 && l.outputThroughput !== null
      ? [[1000 / l.tpotMeanMs, l.outputThroughput] as const]
      : [],
  );
}

/** The points no other point beats on both axes (at least as good on both, better on one), by interactivity. */
export function paretoFrontier(points: readonly Point[]): Point[] {
  const dominated = (p: Point): boolean =>
    points.some((q) => q[0] >= p[0] && q[1] >= p[1] && (q[0] > p[0] || q[1] > p[1]));
  return points.filter((p) => !dominated(p)).sort((a, b) => a[0] - b[0]);
}

export function paretoChart(levels: readonly SweepReportLevel[]): ChartSpec {
  const points = paretoPoints(levels);
  const frontier = paretoFrontier(points);
  return {
    id: 'sweep-pareto',
    title: 'Throughput against interactivity, one point per level (Pareto frontier)',
    xLabel: 'interactivity: output tok/s per user (1000 / mean TPOT)',
    yLabel: 'output throughput (tok/s)',
    series: [
      { name: 'level', kind: 'points', points },
      { name: 'Pareto frontier', kind: 'line', points: frontier },
    ],
    note:
      `${frontier.length} of ${points.length} levels on the frontier. Up is more total throughput, right is ` +
      'faster tokens for each user; a level below and left of the line is beaten on both by another.',
  };
}
