// What `bench` and `sweep` do before the first request, once the settings are resolved: say what will be hit and
// how, warn about what could make the numbers lie (proxy variables, payload options the backend ignores), and
// settle the model, tokenizer and dataset. Nothing is printed here; each line goes to the caller's `say`.

import { recordsFilesAt } from '../../src/measure/record-files.js';
import { type Backend, backendProtocol, requestHeaders } from '../../src/protocols/backends.js';
import { loadTokenizer } from '../tokenizer/hf-tokenizer.js';
import type { Tokenizer } from '../tokenizer/tokenizer.js';
import { checkInputFile, type LoadedDataset, loadDataset, RECORDS_FILE_SHAPE } from './load-dataset.js';
import { discoverModel } from './model-discovery.js';
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

// ---- What the backend cannot do of what was asked ----
// What the chosen backend cannot do of what was asked, said once before the run (not per request), so that the
// numbers are read for what they are.

interface NotedPayload {
  readonly ignoreEos: boolean;
}

function backendWarnings(backend: Backend, payload: NotedPayload): string[] {
  const warnings: string[] = [];
  if (payload.ignoreEos && !backendProtocol(backend).hasIgnoreEos) {
    // ignore_eos is vLLM's extension of OpenAI's bodies; these protocols have no way to forbid an early stop.
    warnings.push(
      `--ignore-eos has no equivalent in --backend ${backend} and is not sent: output lengths are the model's own ` +
        '(the requested length is only a ceiling), so output token counts, TPOT and throughput are not comparable ' +
        'with an ignore_eos run. A vLLM server may accept it through --extra-body \'{"ignore_eos": true}\'.',
    );
  }
  return warnings;
}

// ---- Proxy variables ----
// Proxy variables left over in the shell are a classic cause of "local proxy failed" with Python tools, which
// honour them. tokenmeter bench connects directly and ignores them; it says so, so that a user comparing with
// another tool knows one of the two went through a proxy. Credentials in the values are masked.

const PROXY_VARIABLES = ['http_proxy', 'https_proxy', 'all_proxy', 'no_proxy'];

function mask(value: string): string {
  return value.replace(/\/\/[^/@]*@/, '//***@');
}

/** One line per proxy variable set, in any letter case. */
function proxyNotes(env: NodeJS.ProcessEnv): string[] {
  const notes: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || value === '' || !PROXY_VARIABLES.includes(name.toLowerCase())) continue;
    notes.push(
      `${name}=${mask(value)} is set: tokenmeter connects directly and ignores it (Python tools such as vLLM's ` +
        'benchmark would use it; unset it if you compare the two)',
    );
  }
  return notes;
}
