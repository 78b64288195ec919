// What `bench` and `sweep` do before the first request, once the settings are resolved: say what will be hit and
// how, warn about what could make the numbers lie (proxy variables, payload options the backend ignores), and
// settle the model, tokenizer and dataset. Nothing is printed here; each line goes to the caller's `say`.

import { recordsFilesAt } from '../../src/measure/record-files.js';
import { loadTokenizer } from '../tokenizer/load-tokenizer.js';
import type { Tokenizer } from '../tokenizer/tokenizer.js';
import { backendWarnings } from './backend-notes.js';
import { checkInputFile } from './input-file.js';
import { type LoadedDataset, loadDataset, RECORDS_FILE_SHAPE } from './load-dataset.js';
import { discoverModel } from './model-discovery.js';
import { proxyNotes } from './proxy-env.js';
import { requestHeaders } from './request-headers.js';
import type { BenchSettings } from './settings.js';

/** One line for the user (the CLI writes it to stderr). */
export type Say = (line: string) => void;

export interface PrepareRunOptions {
  /** Notes about the flags (e.g. one accepted and ignored), said after the target's notes and warnings. */
  readonly flagNotes?: readonly string[];
  /** Where the proxy variables are read from. */
  readonly env?: NodeJS.ProcessEnv;
}

/** What a run (or every level of a sweep) needs beyond its settings. */
export interface PreparedRun {
  /** --model, or what the server said. */
  readonly modelId: string;
  /** The body's model field. */
  readonly sentModel: string;
  readonly tokenizer: Tokenizer;
  readonly dataset: LoadedDataset;
}

export async function prepareRun(
  settings: BenchSettings,
  say: Say,
  options: PrepareRunOptions = {},
): Promise<PreparedRun> {
  // Local files first, before a word is said: a mistyped path is one line, found without waiting on (or
  // blaming) the server.
  const tokenizer = await loadTokenizer(settings.tokenizer);
  const dataset = await loadDataset(settings.dataset, tokenizer);
  // A gateway run with --workers wrote one file per worker beside the path it was given.
  for (const file of settings.gatewayRecords === undefined ? [] : recordsFilesAt(settings.gatewayRecords))
    await checkInputFile('--gateway-records', file, RECORDS_FILE_SHAPE, true);
  const target = settings.target;
  say(`target: ${target.url} (backend ${target.backend}); key: ${settings.apiKey.source}`);
  for (const note of [...target.notes, ...proxyNotes(options.env ?? process.env)]) say(`note: ${note}`);
  for (const warning of backendWarnings(target.backend, settings.payload)) say(`warning: ${warning}`);
  for (const note of options.flagNotes ?? []) say(`note: ${note}`);
  const modelId =
    settings.model ??
    (await discoverModel(
      target,
      requestHeaders(target.backend, settings.apiKey.key, settings.headers),
      settings.apiKey.key === undefined ? undefined : settings.apiKey.source,
      settings.insecure === true,
    ));
  say(
    `model: ${modelId}${settings.servedModelName === undefined ? '' : ` (sent as ${settings.servedModelName})`}; tokenizer: ${tokenizer.name}`,
  );
  say(`dataset: ${dataset.description}, ${dataset.requests.length} requests`);
  for (const note of dataset.notes) say(`note: ${note}`);
  return { modelId, sentModel: settings.servedModelName ?? modelId, tokenizer, dataset };
}
