// The paired comparison as terminal text: every pair on its own line (primary / mirror for each figure), then
// the summary of the differences, and one sentence per latency a reader can paste ("mirror 'hosted' is 38.0 ms
// slower to first token than primary 'local' at p50, 95% CI 31.0-45.0 ms"). Plain ASCII.
import { CONFIDENCE, type Interval, RESAMPLES } from './bootstrap.js';
import {
  MIN_PAIRS_FOR_INTERVAL,
  type MirrorFailure,
  type MirrorPair,
  type PairedComparison,
  type PairedDifference,
  type PairedFigure,
} from './mirror-pairs.js';

const LABELS: Readonly<
  Record<PairedFigure, { readonly name: string; readonly unit: string; readonly phrase: string }>
> = {
  ttftMs: { name: 'TTFT', unit: 'ms', phrase: 'to first token' },
  tpotMs: { name: 'TPOT', unit: 'ms', phrase: 'per output token' },
  e2eMs: { name: 'E2E', unit: 'ms', phrase: 'end to end' },
  outputTokens: { name: 'output tokens', unit: 'tokens', phrase: '' },
};

const percent = Math.round(CONFIDENCE * 100);

function num(value: number | null): string {
  return value === null ? '-' : value.toFixed(1);
}

function signed(value: number | null): string {
  if (value === null) return '-';
  return value > 0 ? `+${value.toFixed(1)}` : value.toFixed(1);
}

function interval(i: Interval | null): string {
  return i === null
    ? `no interval (under ${MIN_PAIRS_FOR_INTERVAL} pairs)`
    : `[${signed(i.low)}, ${signed(i.high)}]`;
}

/** "'hosted' (qwen2.5-7b)": an upstream and the model it was sent. */
function sideName(upstream: string | null, model: string | null): string {
  return `'${upstream ?? '?'}'${model === null ? '' : ` (${model})`}`;
}

function distinct(values: readonly string[]): string {
  return [...new Set(values)].join(', ');
}

/** A pair's figures as "primary/mirror". */
function both(pair: MirrorPair, figure: PairedFigure): string {
  return `${num(pair.primary[figure])}/${num(pair.mirror[figure])}`;
}

function pairLine(pair: MirrorPair, idWidth: number): string {
  const outcome =
    pair.primary.outcome === 'ok' && pair.mirror.outcome === 'ok'
      ? ''
      : `  ${pair.primary.outcome}/${pair.mirror.outcome}`;
  return [
    pair.pairId.padEnd(idWidth),
    both(pair, 'ttftMs').padStart(15),
    both(pair, 'tpotMs').padStart(13),
    both(pair, 'e2eMs').padStart(17),
    both(pair, 'outputTokens').padStart(13),
    `${pair.primary.finishReason ?? '-'}/${pair.mirror.finishReason ?? '-'}`.padStart(14),
  ]
    .join('  ')
    .concat(outcome);
}

/**
 * The sentence for a latency: which way the median of the paired differences goes, with its interval; an
 * interval that holds 0 says the difference is not beyond the noise.
 */
export function pairedSentence(d: PairedDifference, mirrorName: string, primaryName: string): string | null {
  const label = LABELS[d.figure];
  if (d.medianDifference === null || label.phrase === '') return null;
  const size = Math.abs(d.medianDifference).toFixed(1);
  const way = d.medianDifference >= 0 ? 'slower' : 'faster';
  const head = `mirror ${mirrorName} is ${size} ${label.unit} ${way} ${label.phrase} than primary ${primaryName} at p50`;
  const i = d.medianInterval;
  if (i === null) return `${head} (${d.pairs} pairs: too few for an interval)`;
  if (i.low <= 0 && i.high >= 0) {
    return `${head}, ${percent}% CI ${signed(i.low)} to ${signed(i.high)} ${label.unit}: not beyond the noise`;
  }
  const [a, b] = d.medianDifference >= 0 ? [i.low, i.high] : [-i.high, -i.low];
  return `${head}, ${percent}% CI ${a.toFixed(1)}-${b.toFixed(1)} ${label.unit}`;
}

/** Names of the two sides, from every pair (normally one upstream and model each). */
export function sideNames(comparison: PairedComparison): { primary: string; mirror: string } {
  return {
    primary: distinct(comparison.pairs.map((p) => sideName(p.primary.upstream, p.primary.model))),
    mirror: distinct(comparison.pairs.map((p) => sideName(p.mirror.upstream, p.mirror.model))),
  };
}

export interface PairsSummary {
  readonly header: readonly string[];
  /** One row per figure, as printed. */
  readonly rows: readonly (readonly string[])[];
  /** The sentence of each latency. */
  readonly sentences: readonly string[];
  /** Outcomes, finish reasons, records left out. */
  readonly notes: readonly string[];
}

/** Why mirror copies failed, from their records: e.g. "Mirror copies failed: 12 http_error, HTTP 404, sent to
 *  /v1/v1/chat/completions: upstream said ...; hint: ...". */
function mirrorFailureNote(failure: MirrorFailure): string {
  const how = [
    `${failure.count} ${failure.outcome}`,
    ...(failure.status === null || failure.status === 0 ? [] : [`HTTP ${failure.status}`]),
    ...(failure.pathSent === null ? [] : [`sent to ${failure.pathSent}`]),
  ].join(', ');
  const why = [
    ...(failure.error === null ? [] : [failure.error]),
    ...(failure.hint === null ? [] : [`hint: ${failure.hint}`]),
  ].join('; ');
  return `Mirror copies failed: ${how}${why === '' ? '' : `: ${why}`}.`;
}

/** The summary as rows and sentences, shared by the terminal text and the HTML page. */
export function pairsSummary(comparison: PairedComparison): PairsSummary {
  const names = sideNames(comparison);
  const { compared, same } = comparison.finishReasons;
  const outcomes = Object.entries(comparison.outcomes)
    .map(([k, v]) => `${k}: ${v}`)
    .join(', ');
  return {
    header: [
      'figure',
      'pairs',
      'primary p50',
      'mirror p50',
      'p50 of diff',
      'interval',
      'mean diff',
      'interval',
    ],
    rows: comparison.differences.map((d) => [
      LABELS[d.figure].name,
      String(d.pairs),
      num(d.primaryMedian),
      num(d.mirrorMedian),
      signed(d.medianDifference),
      interval(d.medianInterval),
      signed(d.meanDifference),
      interval(d.meanInterval),
    ]),
    sentences: comparison.differences
      .map((d) => pairedSentence(d, names.mirror, names.primary))
      .filter((line): line is string => line !== null),
    notes: [
      `Outcomes (primary / mirror): ${outcomes}.`,
      ...comparison.mirrorFailures.map(mirrorFailureNote),
      `Finish reasons: the same in ${same} of ${compared} pairs where both gave one.`,
      `Differences are mirror minus primary over pairs where both answered ok, with ${percent}% bootstrap intervals over pairs (${RESAMPLES} resamples).`,
      ...(comparison.unpaired > 0
        ? [
            `${comparison.unpaired} records without their other side (a cut file, a lost record) are left out.`,
          ]
        : []),
    ],
  };
}

const WIDTHS = [14, 6, 13, 12, 13, 20, 10, 20];

export function formatPairs(comparison: PairedComparison): string {
  const { pairs, unpaired } = comparison;
  if (pairs.length === 0) {
    return `No pairs: no record has a pairId with both its primary and its mirror${unpaired > 0 ? ` (${unpaired} incomplete)` : ''}. Records get a pairId when the gateway's route has a mirror (docs/configuration.md, "Mirroring").\n`;
  }
  const names = sideNames(comparison);
  const summary = pairsSummary(comparison);
  const idWidth = Math.max(7, ...pairs.map((p) => p.pairId.length));
  const row = (cells: readonly string[]): string =>
    cells.map((c, i) => (i === 0 ? c.padEnd(WIDTHS[i] ?? 0) : c.padStart(WIDTHS[i] ?? 0))).join('  ');
  const lines = [
    `Paired comparison: ${pairs.length} pairs, primary ${names.primary} vs mirror ${names.mirror}`,
    '',
    'Per pair (primary/mirror; times in ms from the client request arriving):',
    [
      'pair id'.padEnd(idWidth),
      'TTFT'.padStart(15),
      'TPOT'.padStart(13),
      'E2E'.padStart(17),
      'output tokens'.padStart(13),
      'finish reasons'.padStart(14),
    ].join('  '),
    ...pairs.map((p) => pairLine(p, idWidth)),
    '',
    row(summary.header),
    ...summary.rows.map(row),
    '',
    ...summary.notes,
    '',
    ...summary.sentences,
  ];
  return `${lines.join('\n')}\n`;
}
