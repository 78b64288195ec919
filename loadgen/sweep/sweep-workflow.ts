// `tokenmeter sweep` from resolved settings and the levels asked for to saved files, in the order a user meets it:
// the settings a concurrency sweep cannot take refused, the folders it will write checked before anything is read,
// the run prepared once (tokenizer, dataset, model) for every level, the sweep (probes, levels or the SLO search),
// its table and knee printed, then sweep-summary.json and the HTML page saved. The CLI parses the flags into these
// inputs, hands over where lines go and how Ctrl-C stops the sweep, and picks the exit status from the outcome.

import { UsageError } from '../../src/shared/user-facing-error.js';
import type { Stoppable } from '../bench/bench-workflow.js';
import { checkOutputFolders, sweepOutputFolders } from '../bench/output-folders.js';
import { prepareRun, type Say } from '../bench/prepare-run.js';
import type { ProgressStream } from '../bench/progress.js';
import type { BenchSettings } from '../bench/settings.js';
import { runSweep, type SweepInput, type SweepOutcome, saveSweep } from './run-sweep.js';

/** What the levels are: the rates or concurrencies, or the SLOs to search within, and how long each runs. */
export type SweepPlan = Pick<
  SweepInput,
  'rates' | 'steps' | 'levelSeconds' | 'concurrencies' | 'slos' | 'sloBisections' | 'search'
>;

export interface SweepWorkflowInput {
  readonly settings: BenchSettings;
  readonly plan: SweepPlan;
  /** Notes about the flags, said after the target's notes. */
  readonly flagNotes?: readonly string[];
  /** --html's path. */
  readonly htmlPath?: string;
  /** Lines for the user (stderr). */
  readonly say: Say;
  /** The table and the knee (stdout). */
  readonly print: (text: string) => void;
  /** Where each level's live progress display goes (the CLI's stderr). */
  readonly progressStream: ProgressStream;
  /** Runs the levels with a stop signal; without one nothing stops the sweep early. */
  readonly stoppable?: Stoppable;
  /** Where the proxy variables are read from (the process's environment unless given). */
  readonly env?: NodeJS.ProcessEnv;
}

const unstoppable: Stoppable = (work) => work(new AbortController().signal);

/** Settings a concurrency sweep sets itself or cannot split (from flags, environment or config alike). */
function refuseConcurrencySettings(settings: BenchSettings): void {
  if (settings.maxConcurrency !== undefined)
    throw new UsageError(
      'each concurrency level sets its own --max-concurrency (at rate inf): leave out --max-concurrency',
    );
  // A cap is the whole run's and split across the shards: levels below the shards' count would be refused one
  // by one, mid-sweep.
  if (settings.shard !== undefined)
    throw new UsageError('a concurrency sweep runs in one process: leave out --shard (or sweep --rates)');
}

export async function sweepWorkflow(input: SweepWorkflowInput): Promise<SweepOutcome> {
  const { settings, plan, say } = input;
  if (plan.concurrencies !== undefined || plan.search === 'concurrency') refuseConcurrencySettings(settings);
  else if (settings.dataset.timedTrace?.selfTimed === true)
    throw new UsageError(
      "a rate sweep sets each level's --request-rate, which a self-timed timed_trace ignores: add --no-self-timed",
    );
  checkOutputFolders(sweepOutputFolders(settings, input.htmlPath));
  const prepared = await prepareRun(settings, say, {
    flagNotes: input.flagNotes ?? [],
    ...(input.env === undefined ? {} : { env: input.env }),
  });
  const outcome = await (input.stoppable ?? unstoppable)((signal) =>
    runSweep({ ...plan, settings, prepared, signal, say, progressStream: input.progressStream }),
  );
  input.print(outcome.report);
  await saveSweep(outcome, settings, prepared, input.htmlPath, say);
  return outcome;
}
