// `tokenmeter sweep`: the bench at several request rates, and where the server stops keeping up (sweep-run.ts).
import { DEFAULT_STEPS } from '../../loadgen/sweep/sweep-rates.js';
import { BENCH_OPTIONS, RATE_OPTION } from './bench-options.js';
import type { Command } from './command.js';
import type { OptionSpec } from './options.js';

const SWEEP_DEFAULT_PROMPTS = 100;

export const SWEEP_OPTIONS: readonly OptionSpec[] = [
  {
    name: 'rates',
    type: 'string',
    default: 'auto',
    valueName: 'LIST',
    help: 'Request rates to run, e.g. 1,2,4,8; auto = probe saturation, then step up to 125% of it',
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
  ...BENCH_OPTIONS.filter((o) => o !== RATE_OPTION && o.name !== 'smoke').map((o) =>
    o.name === 'num-prompts' ? { ...o, default: SWEEP_DEFAULT_PROMPTS, help: 'Requests per level' } : o,
  ),
];

export const sweepCommand: Command = {
  name: 'sweep',
  summary: 'Run the bench at several request rates and find where the server stops keeping up',
  usage: ['sweep --base-url URL [--rates 1,2,4,8 | --rates auto --steps 5] [bench flags]'],
  options: SWEEP_OPTIONS,
  allowPositionals: true,
  details:
    'Table columns and the knee rule: docs/loadgen.md. Results: one vLLM JSON + records per level, and sweep-summary.json.',
  async run(commandLine) {
    const { runSweep } = await import('../../loadgen/sweep/run-sweep.js');
    return runSweep(commandLine, SWEEP_OPTIONS);
  },
};
