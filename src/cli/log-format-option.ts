// `--log-format`, shared by the commands that run a gateway (`serve`, `demo`): pretty lines for a person at a
// terminal, JSON lines for everything else.
import { LOG_FORMATS, type LogFormat, resolveLogFormat } from '../gateway/logs/logger.js';
import type { OptionSpec } from '../shared/option-schema.js';

export const LOG_FORMAT_OPTION = {
  name: 'log-format',
  type: 'string',
  valueName: 'FORMAT',
  env: 'TOKENMETER_LOG_FORMAT',
  choices: LOG_FORMATS,
  default: 'auto',
  help: 'Log lines as json, or pretty for reading; auto: pretty when the output is a terminal, else json',
} as const satisfies OptionSpec;

/** The format the logger writes to `output` in. */
export function logFormatFor(
  options: { readonly 'log-format': LogFormat },
  output: { readonly isTTY?: boolean },
): 'json' | 'pretty' {
  return resolveLogFormat(options['log-format'], output.isTTY === true);
}
