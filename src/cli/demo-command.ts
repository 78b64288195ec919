// `tokenmeter demo`: the whole product on the embedded default, with nothing to install or configure.

import { LOG_FORMAT_OPTION, logFormatFor } from '../gateway/logs/logger.js';
import { defineCommand } from './command.js';

export const demoCommand = defineCommand({
  usage: ['demo [--answer-only] [--prompts N] [--request-rate R] [--keep-running] [--log-format FORMAT]'],
  options: [
    {
      name: 'answer-only',
      type: 'boolean',
      help: 'Only the streamed answer: skip the gateway and the benchmark replay',
    },
    {
      name: 'prompts',
      type: 'integer',
      default: 30,
      min: 1,
      valueName: 'N',
      help: 'Prompts of the bundled sample to replay',
    },
    {
      name: 'request-rate',
      type: 'number',
      default: 10,
      min: 0.1,
      valueName: 'R',
      help: 'Replay rate (req/s)',
    },
    {
      name: 'keep-running',
      type: 'boolean',
      help: 'Leave the simulator running afterwards (Ctrl-C stops it) to try it with curl',
    },
    {
      name: 'port',
      type: 'integer',
      default: 0,
      min: 0,
      max: 65535,
      valueName: 'PORT',
      help: 'Simulator port (0 = any free port)',
    },
    LOG_FORMAT_OPTION,
  ],
  async run({ options }) {
    // Loaded on use: the simulator, gateway and load generator stay out of every other command's start-up.
    const { runDemo } = await import('./demo-run.js');
    return runDemo({
      port: options['port'],
      answerOnly: options['answer-only'],
      prompts: options['prompts'],
      rate: options['request-rate'],
      keepRunning: options['keep-running'],
      logFormat: logFormatFor(options, process.stderr),
    });
  },
});
