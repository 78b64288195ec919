// Runs `run` against a fresh in-process simulator and always closes it.
import { type RunningSimulator, type SimOptions, startSimulator } from '../../../src/sim/index.js';

export async function withSim(
  options: SimOptions,
  run: (sim: RunningSimulator) => Promise<void>,
): Promise<void> {
  const sim = await startSimulator(options);
  try {
    await run(sim);
  } finally {
    await sim.close();
  }
}
