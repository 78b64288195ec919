// Replays a BurstGPT trace: the CSV published with the BurstGPT paper, one request a row with its arrival in
// seconds from the trace's start and its request and response token counts (header `Timestamp,Model,Request
// tokens,Response tokens,Total tokens,Log Type`; columns are found by name, so their order may differ). Rows whose
// response has 0 tokens are requests that failed in the traced service: they are skipped and counted, since
// asking a server for 0 tokens measures nothing. Prompts are words of each request's own (the trace has no
// prefix ids), sent at the row's time divided by --replay-speed.

import { UserFacingError } from '../../src/shared/user-facing-error.js';
import {
  readTraceLines,
  replayTrace,
  type TraceLine,
  type TraceReplay,
  type TraceReplayOptions,
} from './mooncake-trace.js';

const COLUMNS = { timestamp: 'timestamp', input: 'request tokens', output: 'response tokens' } as const;

type Columns = Record<keyof typeof COLUMNS, number>;

function columnsOf(header: string): Columns | string {
  const names = header.split(',').map((name) => name.trim().toLowerCase());
  const found: Partial<Columns> = {};
  for (const [key, name] of Object.entries(COLUMNS) as [keyof Columns, string][]) {
    const at = names.indexOf(name);
    if (at < 0)
      return `the header has no '${name}' column (a BurstGPT CSV starts with Timestamp,Model,Request tokens,Response tokens,...)`;
    found[key] = at;
  }
  return found as Columns;
}

/** A parser for one file's rows: the first call reads the header; a row that failed in the trace gives null. */
export function burstGptRows(path: string): {
  parse(text: string, line: number): TraceLine | string | null;
  failed(): number;
} {
  let columns: Columns | null = null;
  let failed = 0;
  return {
    failed: () => failed,
    parse(text, line) {
      if (columns === null) {
        const header = columnsOf(text);
        if (typeof header === 'string') throw new UserFacingError(`--dataset-path ${path}: ${header}`);
        columns = header;
        return null;
      }
      const cells = text.split(',');
      const timestamp = Number(cells[columns.timestamp]);
      const input = Number(cells[columns.input]);
      const output = Number(cells[columns.output]);
      if (!Number.isFinite(timestamp) || timestamp < 0) return 'Timestamp must be seconds, 0 or more';
      if (!Number.isInteger(input) || input < 1) return 'Request tokens must be a whole number above 0';
      if (!Number.isInteger(output) || output < 0) return 'Response tokens must be a whole number, 0 or more';
      if (output === 0) {
        failed++;
        return null;
      }
      return {
        sourceId: `row ${line}`,
        timestampMs: timestamp * 1000,
        inputTokens: input,
        outputTokens: output,
        hashIds: [],
      };
    },
  };
}

export async function sampleBurstGptTrace(options: TraceReplayOptions): Promise<TraceReplay> {
  const rows = burstGptRows(options.path);
  const read = await readTraceLines(options.path, rows.parse);
  const replay = replayTrace(read, options, 'BurstGPT trace');
  const failed = rows.failed();
  if (failed === 0) return replay;
  return {
    ...replay,
    notes: [
      ...replay.notes,
      `skipped ${failed} rows with 0 response tokens (requests that failed in the trace)`,
    ],
  };
}
