// `tokenmeter trace export RECORDS -o trace.jsonl`: a gateway's records file as an anonymised Mooncake-style
// trace (loadgen/traces/records-trace.ts), to be replayed with `bench --dataset-name mooncake`; with --sessions,
// as an agentic trace of sessions and turns (loadgen/traces/records-agentic.ts). `tokenmeter trace check FILE`
// reads an agentic trace (tokenmeter's, or AIPerf's with --format aiperf) as a replay would, and says what it holds
// or, in one line, where it breaks.

import { writeFileSync } from 'node:fs';
import type { AgentTrace } from '../../loadgen/traces/agent-sessions.js';
import { readAgenticTrace } from '../../loadgen/traces/agentic-trace.js';
import { readAiperfSessionTrace } from '../../loadgen/traces/aiperf-session-trace.js';
import { DEFAULT_TRACE_BLOCK_TOKENS } from '../../loadgen/traces/block-prompts.js';
import { recordsToAgenticTrace } from '../../loadgen/traces/records-agentic.js';
import { recordsToTrace } from '../../loadgen/traces/records-trace.js';
import { readRecordsText } from '../measure/record-files.js';
import { fileErrorReason } from '../shared/regular-file.js';
import { UsageError, UserFacingError } from '../shared/user-facing-error.js';
import { defineCommand } from './command.js';

export const traceCommand = defineCommand({
  usage: [
    'trace export RECORDS.jsonl -o trace.jsonl [--block-tokens 512] [--sessions]',
    'trace check TRACE.jsonl [--format tokenmeter|aiperf] [--block-tokens 512]',
  ],
  options: [
    {
      name: 'output',
      short: 'o',
      type: 'string',
      valueName: 'FILE',
      help: 'export: where to write the trace (required)',
    },
    {
      name: 'block-tokens',
      type: 'integer',
      min: 1,
      default: DEFAULT_TRACE_BLOCK_TOKENS,
      valueName: 'N',
      help: "Tokens per prefix block id (Mooncake's traces use 512); for check, the block size of an AIPerf trace",
    },
    {
      name: 'sessions',
      type: 'boolean',
      help: "export: write the agentic trace, one line per turn of each session the gateway found (docs/loadgen.md, 'Agentic traces')",
    },
    {
      name: 'format',
      type: 'string',
      choices: ['tokenmeter', 'aiperf'],
      default: 'tokenmeter',
      valueName: 'NAME',
      help: "check: the trace's format: tokenmeter (trace export --sessions) or aiperf (AIPerf's mooncake_trace with session_id and delay)",
    },
  ],
  details:
    "Each line holds a client request's arrival (ms after the first), its prompt and completion token counts, " +
    'and hash_ids: prefix block ids computed from the prompt when the gateway ran with --record-bodies (equal ' +
    'ids mean equal prompt text up to that block), fresh ids otherwise. No text is written. Replay it with ' +
    '`tokenmeter bench --dataset-name mooncake --dataset-path trace.jsonl`. With --workers, give the path ' +
    "the gateway was given: every worker's file is read. With --sessions, each line is one turn of a session " +
    '(session, turn, arrival, wait before it, lengths, block ids, protocol, tool calls and results). ' +
    '`trace check` reads such a trace as a replay would and prints its sessions and turns, or where it breaks.',
  allowPositionals: true,
  async run({ options, positionals }) {
    const [verb, records, ...rest] = positionals;
    if (verb === 'check') {
      if (records === undefined || rest.length > 0)
        throw new UsageError('give one trace file: trace check TRACE.jsonl');
      return checkTrace(records, options['format'], options['block-tokens']);
    }
    if (verb !== 'export')
      throw new UsageError("the trace command's verbs: 'trace export RECORDS -o FILE', 'trace check TRACE'");
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
    if (options['sessions']) {
      exportSessions(text, records, output, options['block-tokens']);
      return 0;
    }
    const trace = recordsToTrace(text, options['block-tokens']);
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
      const blockTokens = options['block-tokens'];
      process.stderr.write(
        `warning: ${hidden.requests} requests begin with up to ${hidden.longestTokens} tokens an earlier one began ` +
          `with, less than one ${blockTokens}-token block, so their block ids share nothing: export with ` +
          `--block-tokens ${hidden.blockTokens} and replay with --trace-block-tokens ${hidden.blockTokens} to keep it\n`,
      );
    }
    return 0;
  },
});

function writeLines(output: string, lines: readonly object[]): void {
  try {
    writeFileSync(output, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
  } catch (error) {
    throw new UserFacingError(`cannot write ${output}: ${fileErrorReason(error)}`, { cause: error });
  }
}

function exportSessions(text: string, records: string, output: string, blockTokens: number): void {
  const trace = recordsToAgenticTrace(text, blockTokens);
  if (trace.lines.length === 0) {
    throw new UserFacingError(
      `${records}: no client request with prompt and completion token counts to export`,
    );
  }
  writeLines(output, trace.lines);
  const { mirror, withoutTokens, implausible, malformed } = trace.skipped;
  const left = mirror + withoutTokens + implausible + malformed;
  process.stdout.write(
    `Wrote ${output}: ${trace.sessions} sessions, ${trace.lines.length} turns (${trace.unplaced} sessions of one ` +
      `request that named no session); ${trace.lines.length - trace.withoutPrefixes - trace.continued} turns ` +
      `with prefix ids from their prompt's boundaries` +
      (trace.continued === 0
        ? ''
        : `, ${trace.continued} from the turn before (Responses turns that continued a stored answer)`) +
      (trace.overlapping === 0
        ? ''
        : `; ${trace.overlapping} turns arrived before the previous turn's answer ended (wait_ms 0)`) +
      (left === 0
        ? ''
        : `; left out ${mirror} mirror copies, ${withoutTokens} without token counts, ${implausible} with implausible token counts, ${malformed} malformed lines`) +
      '\n',
  );
}

async function checkTrace(path: string, format: string, blockTokens: number): Promise<number> {
  const trace: AgentTrace =
    format === 'aiperf' ? await readAiperfSessionTrace(path, blockTokens) : await readAgenticTrace(path);
  let turns = 0;
  let longest = 0;
  for (const session of trace.sessions) {
    turns += session.turns.length;
    longest = Math.max(longest, session.turns.length);
  }
  process.stdout.write(
    `${path}: ${trace.format} agentic trace, ${trace.sessions.length} sessions, ${turns} turns ` +
      `(at most ${longest} in a session), blocks of ${trace.blockTokens} tokens\n`,
  );
  return 0;
}
