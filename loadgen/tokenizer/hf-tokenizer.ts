// Loads a Hugging Face `tokenizer.json` (the file every model folder on the Hub ships) with
// @huggingface/tokenizers, a pure JavaScript implementation: no native addon, no network. Token counts then
// match what vLLM's benchmark computes with the same tokenizer in Python.

import { stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Tokenizer as HfTokenizer } from '@huggingface/tokenizers';
import { fileErrorReason, readRegularFile } from '../../src/shared/regular-file.js';
import { UserFacingError } from '../../src/shared/user-facing-error.js';
import { BUILTIN_TOKENIZER_NAME, builtinTokenizer, type CountOptions, type Tokenizer } from './tokenizer.js';

const TOKENIZER_FILE = 'tokenizer.json';
const CONFIG_FILE = 'tokenizer_config.json';

async function isDirectory(path: string): Promise<boolean | undefined> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return undefined;
  }
}

async function readJson(path: string, what: string): Promise<object> {
  let text: string;
  try {
    text = await readRegularFile(path);
  } catch (error) {
    throw new UserFacingError(`cannot read ${what} ${path}: ${fileErrorReason(error)}`, {
      cause: error,
    });
  }
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null) throw new Error('not a JSON object');
    return value;
  } catch (error) {
    throw new UserFacingError(
      `${what} ${path} is not valid JSON (${error instanceof Error ? error.message : error}); is the download complete?`,
      { cause: error },
    );
  }
}

/** Optional: tokenizer_config.json carries flags (e.g. whether to add BOS) that change special tokens. */
async function readConfigIfPresent(directory: string): Promise<object> {
  const path = join(directory, CONFIG_FILE);
  return (await isDirectory(path)) === false ? readJson(path, 'tokenizer config') : {};
}

/** Where `spec`'s tokenizer.json is, without reading it: the checks a run (and the doctor) make before loading.
 *  Throws the UserFacingError that names what is missing. */
export async function locateTokenizer(
  spec: string,
): Promise<{ kind: boolean; directory: string; file: string }> {
  const kind = await isDirectory(spec);
  if (kind === undefined) {
    throw new UserFacingError(
      `--tokenizer ${spec}: no such file or folder. tokenmeter never downloads tokenizers: give a local model ` +
        `folder that contains ${TOKENIZER_FILE} (or the file itself), or leave --tokenizer out to use the ` +
        'built-in estimate.',
    );
  }
  const directory = kind ? spec : dirname(spec);
  const file = kind ? join(spec, TOKENIZER_FILE) : spec;
  if (kind && (await isDirectory(file)) !== false) {
    throw new UserFacingError(
      `--tokenizer ${spec}: the folder has no ${TOKENIZER_FILE}. Models that ship only a SentencePiece ` +
        'tokenizer.model need converting first (transformers: AutoTokenizer.from_pretrained(...).save_pretrained(...)).',
    );
  }
  return { kind, directory, file };
}

/**
 * `spec` is a model folder containing tokenizer.json or the path of a tokenizer.json itself. The tokenizer is
 * named after the folder (`Qwen2.5-7B-Instruct`), which is what users recognise.
 */
export async function loadHuggingFaceTokenizer(spec: string): Promise<Tokenizer> {
  const { kind, directory, file } = await locateTokenizer(spec);
  const [tokenizerJson, config] = await Promise.all([
    readJson(file, 'tokenizer'),
    readConfigIfPresent(directory),
  ]);
  // Loaded only here: a run on the built-in rule (the default) never needs the library.
  const { Tokenizer: HfTokenizerClass } = await import('@huggingface/tokenizers');
  let tokenizer: HfTokenizer;
  try {
    tokenizer = new HfTokenizerClass(tokenizerJson, config);
  } catch (error) {
    throw new UserFacingError(
      `--tokenizer ${spec}: ${file} could not be loaded (${error instanceof Error ? error.message : error}).`,
      { cause: error },
    );
  }
  const encode = (text: string, options?: CountOptions): number[] =>
    tokenizer.encode(text, { add_special_tokens: options?.addSpecialTokens ?? false }).ids;
  return {
    name: basename(kind ? spec.replace(/[\\/]+$/, '') : directory),
    encode,
    count: (text, options) => encode(text, options).length,
  };
}

// ---- Choosing the tokenizer from --tokenizer ----
// Chooses the tokenizer from `--tokenizer`: none (or "builtin") gives the built-in estimate rule, anything else
// is a local Hugging Face tokenizer folder or file.

export async function loadTokenizer(spec: string | undefined): Promise<Tokenizer> {
  if (spec === undefined || spec === '' || spec === BUILTIN_TOKENIZER_NAME) return builtinTokenizer;
  return loadHuggingFaceTokenizer(spec);
}
