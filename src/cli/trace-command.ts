// `tokenmeter trace export RECORDS -o trace.jsonl`: a gateway's records file as an anonymised Mooncake-style
// trace (loadgen/traces/records-trace.ts), to be replayed with `bench --dataset-name mooncake`.

import { writeFileSync } from 'node:fs';
import { DEFAULT_TRACE_BLOCK_TOKENS } from '../../loadgen/traces/block-prompts.js';
import { recordsToTrace } from '../../loadgen/traces/records-trace.js';
import { readRecordsText } from '../measure/record-files.js';
import { fileErrorReason } from '../shared/file-error.js';
import { UsageError } from '../shared/usage-error.js';
import { UserFacingError } from '../shared/user-facing-error.js';
import type { Command } from './command.js';

export const traceCommand: Command = {
  usage: ['trace export RECORDS.jsonl -o trace.jsonl [--block-tokens 512]'],
  options: [
    {
      name: 'output',
      short: 'o',
      type: 'string',
      valueName: 'FILE',
      help: 'Where to write the trace (required)',
    },
    {
      name: 'block-tokens',
      type: 'integer',
      min: 1,
      default: DEFAULT_TRACE_BLOCK_TOKENS,
      valueName: 'N',
      help: "Tokens per prefix block id (Mooncake's traces use 512)",
    },
  ],
  details:
    "Each line holds a client request's arrival (ms after the first), its prompt and completion token counts, " +
    'and hash_ids: prefix block ids computed from the prompt when the gateway ran with --record-bodies (equal ' +
    'ids mean equal prompt text up to that block), fresh ids otherwise. No text is written. Replay it with ' +
    '`tokenmeter bench --dataset-name mooncake --dataset-path trace.jsonl`. With --workers, give the path ' +
    "the gateway was given: every worker's file is read.",
  allowPositionals: true,
  async run({ options, positionals }) {
    const [verb, records, ...rest] = positionals;
    if (verb !== 'export')
      throw new UsageError("the trace command has one verb: 'trace export RECORDS -o FILE'");
    if (records === undefined || rest.length > 0)
      throw new UsageError('give one records file: trace export RECORDS -o FILE');
    const output = options['output'];
    if (typeof output !== 'string' || output === '') throw new UsageError('-o/--output FILE is required');
    let text: string;
    try {
      text = readRecordsText(records);
    } catch (error) {
      throw new UserFacingError(`${records}: ${fileErrorReason(error)}`, { cause: error });
    }
    const trace = recordsToTrace(text, options['block-tokens'] as number);
    if (trace.lines.length === 0) {
      throw new UserFacingError(
        `${records}: no client request with prompt and completion token counts to export`,
      );
    }
    try {
      writeFileSync(output, trace.lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
    } catch (error) {
      throw new UserFacingError(`cannot write ${output}: ${fileErrorReason(error)}`, { cause: error });
    }
    const { mirror, withoutTokens, implausible, malformed } = trace.skipped;
    const left = mirror + withoutTokens + implausible + malformed;
    process.stdout.write(
      `Wrote ${output}: ${trace.lines.length} requests, ${trace.fromBodies} with prefix ids from their bodies` +
        (left === 0
          ? ''
          : `; left out ${mirror} mirror copies, ${withoutTokens} without token counts, ${implausible} with implausible token counts, ${malformed} malformed lines`) +
        '\n',
    );
    const hidden = trace.hiddenSharing;
    if (hidden !== undefined) {
      const blockTokens = options['block-tokens'] as number;
      process.stderr.write(
        `warning: ${hidden.requests} requests begin with up to ${hidden.longestTokens} tokens an earlier one began ` +
          `with, less than one ${blockTokens}-token block, so their block ids share nothing: export with ` +
          `--block-tokens ${hidden.blockTokens} and replay with --trace-block-tokens ${hidden.blockTokens} to keep it\n`,
      );
    }
    return 0;
  },
};
