// What `bench` and `sweep` do before the first request: resolve the settings, say what will be hit and how, warn
// about what could make the numbers lie (proxy variables), and settle the model, tokenizer and dataset.

import { randomBytes } from 'node:crypto';
import { withConfigFile } from '../../src/cli/bench-config-file.js';
import { benchSettingsFrom } from '../../src/cli/bench-settings.js';
import type { OptionSpec, ParsedCommandLine } from '../../src/cli/options.js';
import { loadTokenizer } from '../tokenizer/load-tokenizer.js';
import type { Tokenizer } from '../tokenizer/tokenizer.js';
import { backendWarnings } from './backend-notes.js';
import { type LoadedDataset, loadDataset } from './load-dataset.js';
import { discoverModel } from './model-discovery.js';
import { proxyNotes } from './proxy-env.js';
import { requestHeaders } from './request-headers.js';
import type { BenchSettings } from './settings.js';

export interface Prelude {
  readonly runId: string;
  readonly settings: BenchSettings;
  /** --model, or what the server said. */
  readonly modelId: string;
  /** The body's model field. */
  readonly sentModel: string;
  readonly tokenizer: Tokenizer;
  readonly dataset: LoadedDataset;
}

export function newRunId(): string {
  return randomBytes(4).toString('hex');
}

export async function prelude(
  commandLine: ParsedCommandLine,
  specs: readonly OptionSpec[],
  say: (line: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Prelude> {
  const runId = newRunId();
  const options = withConfigFile(commandLine, specs);
  const settings = benchSettingsFrom(options, commandLine.positionals, env, runId);
  const target = settings.target;
  say(`target: ${target.url} (backend ${target.backend}); key: ${settings.apiKey.source}`);
  for (const note of [...target.notes, ...proxyNotes(env)]) say(`note: ${note}`);
  for (const warning of backendWarnings(target.backend, settings.payload)) say(`warning: ${warning}`);
  if (options['trust-remote-code'] === true)
    say(
      'note: --trust-remote-code is accepted and changes nothing (tokenizers load from tokenizer.json; no code runs)',
    );
  const modelId =
    settings.model ??
    (await discoverModel(target, requestHeaders(target.backend, settings.apiKey.key, settings.headers)));
  const tokenizer = await loadTokenizer(settings.tokenizer);
  const dataset = await loadDataset(settings.dataset, tokenizer);
  say(
    `model: ${modelId}${settings.servedModelName === undefined ? '' : ` (sent as ${settings.servedModelName})`}; tokenizer: ${tokenizer.name}`,
  );
  say(`dataset: ${dataset.description}, ${dataset.requests.length} requests`);
  for (const note of dataset.notes) say(`note: ${note}`);
  return { runId, settings, modelId, sentModel: settings.servedModelName ?? modelId, tokenizer, dataset };
}
