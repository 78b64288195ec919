import { benchCommand } from './bench-command.js';
import type { Command } from './command.js';
import { compareCommand } from './compare-command.js';
import { demoCommand } from './demo-command.js';
import { doctorCommand } from './doctor-command.js';
import { mergeCommand } from './merge-command.js';
import { printConfigCommand } from './print-config-command.js';
import { reportCommand } from './report-command.js';
import { serveCommand } from './serve-command.js';
import { simCommand } from './sim-command.js';
import { sweepCommand } from './sweep-command.js';
import { topCommand } from './top-command.js';
import { traceCommand } from './trace-command.js';

/** Every `tokenmeter` command, in the order `--help` lists them. Commands are added as they land. */
export const commands: readonly Command[] = [
  demoCommand,
  simCommand,
  serveCommand,
  benchCommand,
  sweepCommand,
  doctorCommand,
  printConfigCommand,
  compareCommand,
  mergeCommand,
  reportCommand,
  topCommand,
  traceCommand,
];
