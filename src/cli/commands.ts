import type { Command } from './command.js';
import { demoCommand } from './demo-command.js';
import { serveCommand } from './serve-command.js';
import { simCommand } from './sim-command.js';

/** Every `tokenmeter` command, in the order `--help` lists them. Commands are added as they land. */
export const commands: readonly Command[] = [demoCommand, simCommand, serveCommand];
