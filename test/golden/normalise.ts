// What the golden test keeps of a CLI invocation's output: its structure (which lines exist, in which order, their
// labels) and the figures a seeded simulator makes the same on every run (request counts, token totals); every
// time, rate, latency, date, port, temporary path, id and version string becomes a stable placeholder.
//
// Report lines in vLLM's layout ("Label:" then a padded value column) keep their value only when the label is in
// DETERMINISTIC_LABELS; every other value becomes <v>, so a figure that drifts with the machine's load never fails
// the test while a line appearing, vanishing or changing its label does.

/** Labels of report lines whose value is the same on every run against the seeded simulator. */
const DETERMINISTIC_LABELS = new Set([
  'Successful requests',
  'Failed requests',
  'Total input tokens',
  'Total generated tokens',
  'Success rate (%)',
  'Requests with server usage counts',
  'Requests counted by our tokenizer',
  'Mean tokens per chunk',
  'Median tokens per chunk',
  'P99 tokens per chunk',
  'Maximum request concurrency',
  'Traffic request rate',
  'Burstiness factor',
]);

/**
 * Lines left out altogether: verdicts whose presence, not only their figures, follows the machine's load. On the
 * 2-core machine, runs of the same invocation printed a TTFT-spread or a schedule-lag verdict one time and not the
 * next. With them goes the Verdicts heading (printed only when some verdict is); the verdicts that follow from the
 * command line (--max-concurrency set the load, Stopped: ...) stay.
 */
const CLOCK_DRIVEN_LINES: readonly RegExp[] = [
  /^-+ ?Verdicts ?-+$/,
  // The TTFT-spread verdict (loadgen/report/verdicts.ts) and the lines that explain it.
  /^TTFT p99 \S+ ms(?: is |, median )/,
  /^(?:Not the prompt length|The slow TTFTs are the long prompts|In the slowest 1%|Cause: the server verdict|Cause unknown:)/,
  // The client-bottleneck verdict.
  /^schedule lag p99 /,
];

/** Node's own warnings differ between its release lines (20, 22, 24), and are no part of tokenmeter's output. */
const NODE_WARNING_LINES: readonly RegExp[] = [
  /^\(node:\d+\) \w*Warning: /,
  /^\(Use `node --trace-\w+ \.\.\.` to show where the warning was created\)$/,
];

/** A vLLM-style report line: a label, a colon, then at least two spaces of padding before the value. */
const REPORT_LINE = /^(\S[^:]*?):( {2,})(\S.*?)\s*$/;

export interface MaskContext {
  /** Folders whose paths vary run to run (the scratch folder, os.tmpdir()). */
  readonly paths: readonly string[];
  /** This machine's name (reports name the host a run or shard came from). */
  readonly hostname: string;
  /** Text with nothing that varies (help pages): only Node's warnings and trailing spaces go. */
  readonly verbatim?: boolean;
}

export function maskText(text: string, context: MaskContext): string {
  const lines = text.split('\n').map((line) => line.replace(/\s+$/, ''));
  if (context.verbatim === true) {
    return lines.filter((line) => !NODE_WARNING_LINES.some((pattern) => pattern.test(line))).join('\n');
  }
  let masked = lines.join('\n');
  for (const path of [...context.paths].sort((a, b) => b.length - a.length)) {
    masked = masked.split(path).join('<tmp>');
  }
  const hostname = new RegExp(`(?<![\\w.-])${escapeRegExp(context.hostname)}(?![\\w.-])`, 'g');
  return masked
    .replace(hostname, '<hostname>')
    .split('\n')
    .map((line) => line.replace(/\s+$/, ''))
    .filter((line) => ![...CLOCK_DRIVEN_LINES, ...NODE_WARNING_LINES].some((pattern) => pattern.test(line)))
    .map(maskLine)
    .join('\n');
}

function maskLine(line: string): string {
  const report = REPORT_LINE.exec(line);
  if (report) {
    const label = report[1] as string;
    const value = report[3] as string;
    return `${label}: ${DETERMINISTIC_LABELS.has(label) ? value : '<v>'}`;
  }
  // A table's rule under its headings is as wide as its widest value, masked or not.
  if (TABLE_RULE.test(line)) return line.trim().replace(/-{3,}/g, '---').replace(/ +/g, '  ');
  const shardRow = SHARD_ROW.exec(line);
  // A shard's schedule-lag figures, and whether they earn it a "behind schedule" note, follow the machine's load.
  if (shardRow) return `${collapse(shardRow[1] as string)} <lag>`;
  const turnRow = TURN_ROW.exec(line);
  if (turnRow) return `${collapse(turnRow[1] as string)}  <figures>`;
  const sweepRow = SWEEP_ROW.exec(line);
  // A sweep level's figures, down to how many of its requests fell in its steady window, follow the clock; the
  // level it ran and its status stay.
  if (sweepRow) return `${sweepRow[1]}  <figures>  ${sweepRow[2]}`;
  let masked = maskFigures(line);
  for (const [pattern, replacement] of CLOCK_DRIVEN_COUNTS) masked = masked.replace(pattern, replacement);
  return collapse(masked);
}

/** A row of the --multi-turn table: turn, ok/sent, prompt and cached tokens, then latencies. */
const TURN_ROW = /^(\s*\d+\s+\d+\/\d+\s+\d+\s+(?:\d+|-))\s.*$/;

/** A row of the sweep table: the level (a rate or a concurrency), requests done/sent, figures, then the status. */
const SWEEP_ROW = /^\s*(\d+(?:\.\d+)?|inf)\s{2,}\d+\/\d+\s.*\s(\S+)$/;

/** Counts in sentences that depend on timing, not on the seed. */
const CLOCK_DRIVEN_COUNTS: ReadonlyArray<readonly [RegExp, string]> = [
  // How many requests a sweep level finished inside its steady window.
  [/only \d+ requests in its steady window/g, 'only <count> requests in its steady window'],
];

/** A table's rule: dashes under each heading, nothing else. */
const TABLE_RULE = /^\s*-{3,}(?: +-{3,})+\s*$/;

/** A row of the Shards table: shard, host, requests, then schedule-lag figures. */
const SHARD_ROW = /^(\d+\/\d+\s+\S+\s+\d+)\s.*$/;

/** Column padding follows the width of masked figures, so runs of spaces inside a line count as one gap. */
function collapse(line: string): string {
  return line.replace(/(\S) {2,}/g, '$1  ');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Masks what varies inside free text, most specific patterns first. */
export function maskFigures(line: string): string {
  return (
    line
      // Node's own version strings (v20.18.0, Node.js v24.1.0) differ between the supported lines.
      .replace(/\bv\d+\.\d+\.\d+\b/g, '<node-version>')
      .replace(/\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?/g, '<date>')
      .replace(/\b\d{8}-\d{6}\b/g, '<date>')
      .replace(/\b(127\.0\.0\.1|localhost|\[::1\]):\d+/g, '$1:<port>')
      .replace(/\btokenmeter \d+\.\d+\.\d+\S*/g, 'tokenmeter <version>')
      .replace(/\bpid \d+/g, 'pid <pid>')
      // Trace, span and run ids (hex), request ids built on them.
      .replace(/\b(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b/g, '<id>')
      .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, '<id>')
      // Clock-like durations (0:02, 1:02:03).
      .replace(/\b\d+(?::\d{2})+\b/g, '<t>')
      // Decimals, but not dotted addresses or versions (127.0.0.1, 0.1.0).
      .replace(/(?<![\d.])-?\d+\.\d+(?:e[+-]?\d+)?(?![\d.])/g, '<n>')
      // Integers that carry a unit of time, rate or size vary with the machine; bare counts stay.
      .replace(/\b\d+(?= ?(?:ms|s|µs|us|ns|min|h|MB|KB|KiB|MiB|GiB|B|bytes|tok\/s|req\/s|rps|RPS)\b)/g, '<n>')
      // A difference's sign flips with noise.
      .replace(/[+-]<n>/g, '<n>')
  );
}

/**
 * Key paths of a JSON value, sorted: nested objects joined with '.', every array collapsed to '[]' (the union of
 * its elements' paths), so the golden file holds the shape of a result JSON and not its length or figures.
 */
export function keyPaths(value: unknown): string[] {
  const paths = new Set<string>();
  const walk = (node: unknown, path: string): void => {
    if (Array.isArray(node)) {
      paths.add(`${path}[]`);
      for (const element of node) walk(element, `${path}[]`);
      return;
    }
    if (node !== null && typeof node === 'object') {
      for (const [key, child] of Object.entries(node)) {
        const childPath = path === '' ? key : `${path}.${key}`;
        paths.add(childPath);
        walk(child, childPath);
      }
    }
  };
  walk(value, '');
  return [...paths].sort();
}

/** Result-JSON fields whose values a seeded run repeats exactly (the rest are times, rates and dates). */
const DETERMINISTIC_KEYS = [
  'backend',
  'endpoint_type',
  'model_id',
  'tokenizer_id',
  'label',
  'num_prompts',
  'request_rate',
  'burstiness',
  'max_concurrency',
  'completed',
  'failed',
  'total_input_tokens',
  'total_output_tokens',
];

export function deterministicValues(value: unknown): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return picked;
  const record = value as Record<string, unknown>;
  for (const key of DETERMINISTIC_KEYS) if (key in record) picked[key] = record[key];
  return picked;
}
