// `tokenmeter sweep`: the bench at several request rates, and where the server stops keeping up. This file turns
// the flags into settings and the levels asked for, hands them to the workflow (loadgen/sweep/sweep-workflow.ts)
// and picks the exit status.

import { DEFAULT_SLO_BISECTIONS } from '../../loadgen/sweep/slo-search.js';
import {
  DEFAULT_STEPS,
  LEVEL_LATENCIES,
  parseConcurrencies,
  parseRates,
  type SweepParameter,
} from '../../loadgen/sweep/sweep-rates.js';
import { parseThreshold, type Threshold } from '../../loadgen/thresholds/threshold.js';
import type { OptionSpec, OptionValues, ParsedCommandLine } from '../shared/option-schema.js';
import { UsageError } from '../shared/user-facing-error.js';
import { BENCH_ONLY_OPTIONS, BENCH_OPTIONS, RATE_OPTION } from './bench-options.js';
import { defineCommand, EXIT_INTERRUPTED, EXIT_OK, EXIT_STOPPED_EARLY } from './command.js';

const SWEEP_DEFAULT_PROMPTS = 100;
const BENCH_SPECS: readonly OptionSpec[] = BENCH_OPTIONS;
const BENCH_ONLY_SPECS: readonly OptionSpec[] = BENCH_ONLY_OPTIONS;

const say = (line: string): void => void process.stderr.write(`${line}\n`);

/** sweep's own flags; it takes bench's too, but for those that bound or gate one run. */
export const SWEEP_OWN_OPTIONS = [
  {
    name: 'rates',
    type: 'string',
    default: 'auto',
    valueName: 'LIST',
    help: 'Request rates to run, e.g. 1,2,4,8; auto = probe one-at-a-time and saturation, then step up to 125% of it',
  },
  {
    name: 'concurrencies',
    type: 'string',
    valueName: 'LIST',
    help: 'Run these concurrencies instead of rates, e.g. 1,2,4,8: each level at rate inf with --max-concurrency N',
  },
  {
    name: 'level-seconds',
    type: 'number',
    min: 0,
    valueName: 'S',
    help: `Least time each level runs (default: ${LEVEL_LATENCIES} x the median latency of one request alone)`,
  },
  {
    name: 'steps',
    type: 'integer',
    min: 2,
    max: 50,
    default: DEFAULT_STEPS,
    valueName: 'N',
    help: 'Levels of an automatic sweep',
  },
  {
    name: 'slo',
    type: 'list',
    valueName: 'EXPR',
    help: "Search for the highest rate (or concurrency, with --search) at which this holds, e.g. 'ttft_p99 < 500ms' (threshold syntax; repeatable)",
  },
  {
    name: 'search',
    type: 'string',
    default: 'rate',
    valueName: 'WHAT',
    help: 'With --slo: rate = the highest request rate; concurrency = the highest --max-concurrency at rate inf; sessions = the most agent sessions in flight (--dataset-name agentic)',
  },
  {
    name: 'slo-bisections',
    type: 'integer',
    min: 1,
    max: 12,
    default: DEFAULT_SLO_BISECTIONS,
    valueName: 'N',
    help: 'With --slo: bisections of the bracket between the last level that held and the first that broke',
  },
] as const satisfies readonly OptionSpec[];

export const SWEEP_OPTIONS = [
  ...SWEEP_OWN_OPTIONS,
  ...BENCH_SPECS.filter((o) => o !== RATE_OPTION && o.name !== 'smoke' && !BENCH_ONLY_SPECS.includes(o)).map(
    (o) =>
      o.name === 'num-prompts'
        ? {
            ...o,
            default: SWEEP_DEFAULT_PROMPTS,
            help: 'Least requests per level (the dataset is cycled for more)',
          }
        : o,
  ),
];

/** --slo EXPR...: the threshold syntax, its mistakes named under --slo. */
function slosFrom(value: unknown): Threshold[] {
  const texts = Array.isArray(value) ? value.map(String) : [];
  return texts.map((text) => {
    try {
      return parseThreshold(text);
    } catch (error) {
      if (error instanceof UsageError) throw new UsageError(error.message.replace(/^--threshold/, '--slo'));
      throw error;
    }
  });
}

/**
 * What the levels move, and the flag combinations that cannot mean anything: a sweep moves one parameter, and a
 * concurrency level sets --max-concurrency itself.
 */
function sweptParameter(
  commandLine: ParsedCommandLine<OptionValues<typeof SWEEP_OPTIONS>>,
  hasSlos: boolean,
  hasRates: boolean,
): { parameter: SweepParameter; concurrencies: number[] | undefined } {
  const search = commandLine.options['search'];
  if (search !== 'rate' && search !== 'concurrency' && search !== 'sessions')
    throw new UsageError(`--search takes rate, concurrency or sessions (got '${search}')`);
  const agentic = ['agentic', 'aiperf_sessions'].includes(String(commandLine.options['dataset-name']));
  if (search === 'sessions' && !agentic)
    throw new UsageError(
      '--search sessions replays agent sessions: give --dataset-name agentic (or aiperf_sessions) --dataset-path TRACE',
    );
  if (agentic && search !== 'sessions')
    throw new UsageError(
      'an agentic trace is swept by its sessions in flight: give --slo EXPR --search sessions',
    );
  if (search === 'sessions') {
    if (!hasSlos)
      throw new UsageError(
        '--search sessions needs --slo EXPR (it searches for the most sessions within it)',
      );
    if (commandLine.options['concurrencies'] !== undefined || hasRates)
      throw new UsageError('--search sessions finds its own levels: leave out --rates and --concurrencies');
    return { parameter: 'sessions', concurrencies: undefined };
  }
  const listed = commandLine.options['concurrencies'];
  let concurrencies: number[] | undefined;
  try {
    concurrencies = typeof listed === 'string' ? parseConcurrencies(listed) : undefined;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (search === 'concurrency' && !hasSlos)
    throw new UsageError(
      '--search concurrency needs --slo EXPR (it searches for the highest concurrency within it); for fixed levels give --concurrencies 1,2,4,8',
    );
  if (concurrencies !== undefined && hasSlos)
    throw new UsageError(
      '--slo searches for the concurrency itself: leave out --concurrencies and give --search concurrency',
    );
  if (commandLine.given.has('search') && !hasSlos)
    throw new UsageError('--search says what --slo moves: give --slo EXPR with it');
  const byConcurrency = concurrencies !== undefined || search === 'concurrency';
  if (byConcurrency && hasRates)
    throw new UsageError('a sweep moves the rate or the concurrency, not both: leave out --rates');
  return { parameter: byConcurrency ? 'concurrency' : 'rate', concurrencies };
}

export const sweepCommand = defineCommand({
  usage: [
    'sweep --base-url URL [--rates 1,2,4,8 | --rates auto --steps 5 | --concurrencies 1,2,4,8] [bench flags]',
    "sweep --base-url URL --slo 'ttft_p99 < 500ms' [--search rate | --search concurrency] [bench flags]",
    "sweep --base-url URL --dataset-name agentic --dataset-path TRACE --slo 'ttft_p99 < 500ms' --search sessions",
  ],
  options: SWEEP_OPTIONS,
  allowPositionals: true,
  details:
    'How to sweep: docs/loadgen.md; table columns and the knee rule: docs/loadgen-reference.md. Results: one vLLM JSON + records per level, and sweep-summary.json. Exit status: 0 done, 1 failed to run, 2 usage, 4 a level stopped by --stop-on-saturation or --max-error-rate (no level after it ran), 130 interrupted.',
  async run(commandLine) {
    const ratesText = commandLine.options['rates'];
    let rates: number[] | undefined;
    try {
      rates = ratesText === 'auto' ? undefined : parseRates(ratesText);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    const slos = slosFrom(commandLine.options['slo']);
    if (slos.length > 0 && rates !== undefined)
      throw new UsageError('--slo searches for the rate itself: leave out --rates (or give --rates auto)');
    const { parameter, concurrencies } = sweptParameter(commandLine, slos.length > 0, rates !== undefined);
    // Loaded on use, as for bench: the engines and tokenizers stay out of other commands' start-up.
    const { sweepWorkflow } = await import('../../loadgen/sweep/sweep-workflow.js');
    const { settingsFromCommandLine } = await import('./bench-settings.js');
    const { untilStopped } = await import('./signals.js');
    const { settings, flagNotes } = settingsFromCommandLine(commandLine, SWEEP_OPTIONS);
    const levelSeconds = commandLine.options['level-seconds'];
    const html = commandLine.options['html'];
    const outcome = await sweepWorkflow({
      settings,
      plan: {
        rates,
        steps: commandLine.options['steps'],
        levelSeconds,
        ...(concurrencies === undefined ? {} : { concurrencies }),
        ...(slos.length === 0
          ? {}
          : {
              slos,
              search: parameter,
              sloBisections: commandLine.options['slo-bisections'],
            }),
      },
      flagNotes,
      ...(typeof html === 'string' ? { htmlPath: html } : {}),
      say,
      print: (text) => void process.stdout.write(text),
      progressStream: process.stderr,
      stoppable: untilStopped,
    });
    if (outcome.interrupted) return EXIT_INTERRUPTED;
    return outcome.stoppedEarly === undefined ? EXIT_OK : EXIT_STOPPED_EARLY;
  },
});
