// Test helper: one seeded run through the real `tokenmeter bench`, whole or as shards (each its own process),
// with its result file and records read back.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseRecordsJsonl } from '../../loadgen/bench/records-file.js';
import type { RequestRecord } from '../../loadgen/record.js';
import type { CliResult } from '../helpers/run-cli.js';
import { bench, cleanEnv } from '../loadgen/helpers/bench-cli.js';

export const RUN = { prompts: 30, rate: 40, seed: 11, outputTokens: 5 } as const;
export const ID_PREFIX = 'shard-test-';

export interface SavedRun {
  readonly cli: CliResult;
  readonly resultPath: string;
  readonly result: Record<string, unknown>;
  readonly records: RequestRecord[];
}

/** The seeded run's flags against `url`, saving its result (default name) into `dir`. */
export function seededRunFlags(url: string, dir: string): string[] {
  return [
    '--base-url',
    url,
    '--num-prompts',
    String(RUN.prompts),
    '--request-rate',
    String(RUN.rate),
    '--seed',
    String(RUN.seed),
    '--sharegpt-output-len',
    String(RUN.outputTokens),
    '--request-id-prefix',
    ID_PREFIX,
    '--disable-tqdm',
    '--save-result',
    '--result-dir',
    dir,
  ];
}

/** `bench` against `url` with the run's settings and `extra` flags, saving `name`.json and its records in `dir`. */
export async function benchRun(url: string, dir: string, name: string, extra: string[]): Promise<SavedRun> {
  const resultPath = join(dir, `${name}.json`);
  const recordsPath = join(dir, `${name}.records.jsonl`);
  const cli = await bench(
    [
      ...seededRunFlags(url, dir),
      '--result-filename',
      `${name}.json`,
      '--records-file',
      recordsPath,
      ...extra,
    ],
    cleanEnv(),
  );
  assert.equal(cli.code, 0, cli.stderr);
  return {
    cli,
    resultPath,
    result: JSON.parse(readFileSync(resultPath, 'utf8')) as Record<string, unknown>,
    records: parseRecordsJsonl(readFileSync(recordsPath, 'utf8')),
  };
}
