// From a benchmark's settings to the doctor's checks and back: read the endpoint, backend, model, key and proxy the
// settings name (as the program that runs them would), run the doctor's checks against that, turn each failure the
// settings can fix into a change, and run the checks again with the changes until nothing new is found. The changes'
// reasons are the checks' own findings, so the corrected command says what the checklist says.

import { defaultEndpoint } from '../../protocols/backends.js';
import { looksLikeFilesystemPath } from '../../shared/upstream-hints.js';
import type { CheckResult, Remedy } from '../check.js';
import type { Backend } from '../endpoint-checks.js';
import { keyVariableInstead } from '../key-check.js';
import { runDoctor } from '../run-doctor.js';
import { type BenchSource, type Change, KEY_LIKE, type SettingValue } from './bench-source.js';
import { shellQuote } from './shell-words.js';

export interface PlanOptions {
  /** doctor's own --base-url when typed: the endpoint the settings should reach. */
  readonly baseUrl: string | undefined;
  readonly timeoutMs: number;
  /** bench's --backend names as the doctor's request format (throws for the ones the doctor cannot check). */
  readonly doctorBackend: (name: string) => Backend;
  /** The local files the settings name, checked as the run would check them (the load generator's checks, handed
   *  in by the CLI: the doctor does not import the load generator). */
  readonly fileChecks?: (files: NamedFiles) => Promise<CheckResult[]>;
}

/** The local files a benchmark's settings make it read, as its program reads them. */
export interface NamedFiles {
  readonly reader: BenchSource['reader'];
  readonly tokenizer?: string;
  readonly datasetName?: string;
  readonly datasetPath?: string;
}

export interface FixPlan {
  /** The checks as the settings stand. */
  readonly before: CheckResult[];
  readonly changes: Change[];
  /** The checks with every change applied. */
  readonly after: CheckResult[];
  /** The endpoint checked, for the heading. */
  readonly target: string;
}

/** What the checks are run with; each change the plan makes is applied here too, for the next round. */
interface CheckSettings {
  baseUrl: string;
  backend: Backend;
  /** The backend as the settings name it (vllm where the request format is openai's). */
  backendName: string;
  model: string | undefined;
  keyVariable: string | undefined;
  keyLiteral: string | undefined;
  env: NodeJS.ProcessEnv;
}

const MAX_ROUNDS = 3;
const VLLM_DEFAULT_ENDPOINT = '/v1/completions';
const BASE_URL_VARIABLE = /(_BASE_URL|_API_BASE|_BASE)$/;

function isSet(env: NodeJS.ProcessEnv, name: string): boolean {
  return (env[name] ?? '').trim() !== '';
}

/** The backend as the program would pick it when --backend is absent. */
function backendName(source: BenchSource): string {
  const given = source.value('backend')?.text;
  if (given !== undefined) return given;
  if (source.reader === 'tokenmeter') return 'openai-chat';
  return source.form === 'vllm bench serve' ? 'openai' : 'vllm';
}

/** Where requests go, as the program computes it; the path part only (the base is checked on its own). */
function endpointUsed(source: BenchSource, backend: Backend): string {
  const given = source.value('endpoint')?.text;
  if (given !== undefined) return given;
  return source.reader === 'vllm' ? VLLM_DEFAULT_ENDPOINT : defaultEndpoint(backend);
}

/** A variable in the environment naming the same host as --host/--port but with https or a path: the hosted base
 *  URL the user exported for this (the article's TAOTOKEN_BASE_URL), which --host/--port cannot express. */
function hostedBaseVariable(env: NodeJS.ProcessEnv, host: string, port: string): string | undefined {
  return Object.keys(env)
    .filter((name) => BASE_URL_VARIABLE.test(name))
    .sort()
    .find((name) => {
      try {
        const url = new URL(env[name] ?? '');
        const urlPort = url.port || (url.protocol === 'https:' ? '443' : '80');
        const path = url.pathname.replace(/\/+$/, '');
        return url.hostname === host && urlPort === port && (url.protocol === 'https:' || path !== '');
      } catch {
        return false;
      }
    });
}

/** The key the settings send: a variable's name, or a value typed as is (never printed). */
function keyOf(source: BenchSource): { variable?: string; literal?: string; implicit: boolean } {
  const typed = source.value('api-key');
  if (typed !== undefined) {
    const variable = typed.variables[0];
    return variable === undefined ? { literal: typed.text, implicit: false } : { variable, implicit: false };
  }
  const named = source.value('api-key-env')?.text;
  if (named !== undefined) return { variable: named, implicit: false };
  // vLLM's benchmark (and bench without a key flag) sends OPENAI_API_KEY, perhaps assigned in front of it.
  const assigned = source.assignment('OPENAI_API_KEY');
  if (assigned !== undefined && assigned.variables.length === 0)
    return { literal: assigned.text, implicit: false };
  const variable = assigned?.variables[0];
  return variable === undefined
    ? { variable: 'OPENAI_API_KEY', implicit: true }
    : { variable, implicit: false };
}

/** Changes that follow from reading the settings alone: the endpoint to reach and the key to send. */
function readSettings(
  source: BenchSource,
  options: PlanOptions,
): { settings: CheckSettings; changes: Change[] } {
  const changes: Change[] = [];
  const named = backendName(source);
  const backend = options.doctorBackend(named);
  const givenBase = source.value('base-url');
  let baseUrl: string;
  if (givenBase !== undefined) {
    baseUrl = givenBase.text;
    if (options.baseUrl !== undefined && options.baseUrl !== givenBase.text) {
      baseUrl = options.baseUrl;
      changes.push({
        why: `--base-url ${givenBase.text} -> ${options.baseUrl}: the endpoint to measure (doctor --base-url)`,
        edits: [{ op: 'set', flag: 'base-url', value: { text: options.baseUrl } }],
      });
    }
  } else {
    const host = source.value('host')?.text ?? '127.0.0.1';
    const port = source.value('port')?.text ?? '8000';
    const variable = options.baseUrl === undefined ? hostedBaseVariable(source.env, host, port) : undefined;
    const hosted = options.baseUrl ?? (variable === undefined ? undefined : (source.env[variable] as string));
    baseUrl = hosted ?? `http://${host}:${port}`;
    if (hosted !== undefined && hosted.replace(/\/+$/, '') !== `http://${host}:${port}`) {
      const named = variable === undefined ? hosted : `"$${variable}" (${hosted})`;
      changes.push({
        why:
          `--host/--port -> --base-url ${named}: the benchmark builds http://${host}:${port}/v1/... from ` +
          '--host/--port, which cannot say https or a base path such as /api',
        edits: [
          {
            op: 'set',
            flag: 'base-url',
            value: variable === undefined ? { text: hosted } : { text: hosted, variable },
            after: 'host',
          },
          { op: 'remove', flag: 'host' },
          { op: 'remove', flag: 'port' },
        ],
      });
    }
  }
  const key = keyOf(source);
  let keyVariable = key.variable;
  if (key.literal !== undefined) {
    // The shell's variables only: one assigned in front holds it only because it was typed there.
    const holder = Object.keys(source.env).find(
      (n) => source.env[n] === key.literal && KEY_LIKE.test(n) && !source.assigned.includes(n),
    );
    const variable = holder ?? 'OPENAI_API_KEY';
    changes.push({
      why:
        'key: a key typed on the command line lands in shell history and process lists; ' +
        (holder === undefined
          ? `export ${variable}=<your key> and send "$${variable}"`
          : `${variable} holds it`),
      edits: [{ op: 'key-variable', variable }],
    });
  } else if (keyVariable !== undefined && !key.implicit && !isSet(source.env, keyVariable)) {
    const instead = keyVariableInstead(source.env, keyVariable);
    if (instead !== undefined) {
      changes.push({
        why: `key: ${keyVariable} is not set in this shell, ${instead} is (its value is never printed)`,
        edits: [{ op: 'key-variable', variable: instead }],
      });
      keyVariable = instead;
    }
  }
  for (const name of source.assigned) {
    const value = source.assignment(name);
    if (
      name === 'OPENAI_API_KEY' ||
      !KEY_LIKE.test(name) ||
      value === undefined ||
      value.variables.length > 0
    )
      continue;
    changes.push({
      why: `${name}: a key typed in front of the command lands in shell history; export ${name} in your shell instead`,
      edits: [{ op: 'drop-assignment', variable: name }],
    });
  }
  const model = source.value('served-model-name')?.text ?? source.value('model')?.text;
  return {
    settings: {
      baseUrl,
      backend,
      backendName: named,
      model,
      keyVariable: key.literal === undefined ? keyVariable : undefined,
      keyLiteral: key.literal,
      env: source.env,
    },
    changes,
  };
}

/** The variable a setting's value is read from ("$BENCH_MODEL_ID" alone), when there is exactly one: the corrected
 *  command keeps referring to it, and the user fixes the variable, or it would stay wrong for the next command. */
function heldBy(value: SettingValue | undefined, env: NodeJS.ProcessEnv): string | undefined {
  const variable = value?.variables.length === 1 ? value.variables[0] : undefined;
  return variable !== undefined && env[variable] === value?.text ? variable : undefined;
}

/** `--model a -> b`, or, for a value read from a variable, `export VAR=b for --model "$VAR" (it holds a)`. */
function fromTo(flag: string, old: string, now: string, variable: string | undefined): string {
  return variable === undefined
    ? `--${flag} ${old} -> ${now}`
    : `export ${variable}=${shellQuote(now)} for --${flag} "$${variable}" (it holds ${old})`;
}

function remedyChange(remedy: Remedy, result: CheckResult, source: BenchSource): Change | undefined {
  const why = (what: string) => `${what}: ${result.detail}`;
  switch (remedy.kind) {
    case 'backend': {
      const endpoint = defaultEndpoint(remedy.backend);
      return {
        why: why(`--backend ${backendName(source)} -> ${remedy.backend} --endpoint ${endpoint}`),
        edits: [
          { op: 'set', flag: 'backend', value: { text: remedy.backend } },
          { op: 'set', flag: 'endpoint', value: { text: endpoint }, after: 'backend' },
        ],
      };
    }
    case 'model': {
      const flag = source.has('served-model-name') ? 'served-model-name' : 'model';
      const given = source.value(flag);
      const old = given?.text ?? '';
      const variable = heldBy(given, source.env);
      const edits: Change['edits'][number][] = [
        { op: 'set', flag, value: { text: remedy.model, ...(variable === undefined ? {} : { variable }) } },
      ];
      // vLLM's benchmark tokenizes with --model when --tokenizer is absent: keep counting with the local weights.
      const keepTokenizer = flag === 'model' && looksLikeFilesystemPath(old) && !source.has('tokenizer');
      if (keepTokenizer) edits.push({ op: 'set', flag: 'tokenizer', value: { text: old }, after: 'model' });
      return {
        why: why(
          `${fromTo(flag, old, remedy.model, variable)}${keepTokenizer ? ` (and --tokenizer ${old})` : ''}`,
        ),
        edits,
      };
    }
    case 'base-url': {
      const given = source.value('base-url');
      if (given === undefined) return undefined;
      const variable = heldBy(given, source.env);
      return {
        why: why(fromTo('base-url', given.text, remedy.baseUrl, variable)),
        edits: [
          {
            op: 'set',
            flag: 'base-url',
            value: { text: remedy.baseUrl, ...(variable === undefined ? {} : { variable }) },
          },
        ],
      };
    }
    case 'unset-proxy':
      return {
        why: why(`unset ${remedy.variables.join(' ')}`),
        edits: [{ op: 'unset-env', variables: remedy.variables }],
      };
  }
}

function apply(change: Change, settings: CheckSettings): void {
  for (const edit of change.edits) {
    if (edit.op === 'set' && edit.flag === 'base-url') settings.baseUrl = edit.value.text;
    if (edit.op === 'set' && (edit.flag === 'model' || edit.flag === 'served-model-name'))
      settings.model = edit.value.text;
    if (edit.op === 'set' && edit.flag === 'backend') {
      settings.backend = edit.value.text as Backend;
      settings.backendName = edit.value.text;
    }
    if (edit.op === 'key-variable') settings.keyVariable = edit.variable;
    if (edit.op === 'unset-env') {
      const env = { ...settings.env };
      for (const name of edit.variables) delete env[name];
      settings.env = env;
    }
  }
}

function check(settings: CheckSettings, timeoutMs: number): Promise<CheckResult[]> {
  return runDoctor({
    baseUrl: settings.baseUrl,
    apiKey: settings.keyLiteral,
    // OPENAI_API_KEY is the doctor's own default, whose absence is fine for a local vLLM: left unnamed so it warns.
    apiKeyEnv:
      settings.keyLiteral === undefined && settings.keyVariable !== 'OPENAI_API_KEY'
        ? settings.keyVariable
        : undefined,
    model: settings.model,
    backend: settings.backend,
    backendName: settings.backendName,
    timeoutMs,
    env: settings.env,
  });
}

/** vLLM's benchmark loads its tokenizer from --tokenizer, else from --model (a local folder when it is a path). */
function namedFiles(source: BenchSource): NamedFiles {
  const model = source.value('model')?.text;
  const tokenizer =
    source.value('tokenizer')?.text ??
    (source.reader === 'vllm' && model !== undefined && looksLikeFilesystemPath(model) ? model : undefined);
  const datasetName = source.value('dataset-name')?.text;
  const datasetPath = (source.value('dataset-path') ?? source.value('dataset'))?.text;
  return {
    reader: source.reader,
    ...(tokenizer === undefined ? {} : { tokenizer }),
    ...(datasetName === undefined ? {} : { datasetName }),
    ...(datasetPath === undefined ? {} : { datasetPath }),
  };
}

export async function planFixes(source: BenchSource, options: PlanOptions): Promise<FixPlan> {
  const plan = await planEndpointFixes(source, options);
  if (options.fileChecks === undefined) return plan;
  // The files are the same before and after the changes (none of them renames a file): checked once, in both.
  const files = await options.fileChecks(namedFiles(source));
  return { ...plan, before: [...plan.before, ...files], after: [...plan.after, ...files] };
}

async function planEndpointFixes(source: BenchSource, options: PlanOptions): Promise<FixPlan> {
  const { settings, changes } = readSettings(source, options);
  const target = settings.baseUrl;
  for (const change of changes) apply(change, settings);
  let results = await check(settings, options.timeoutMs);
  const before = results;
  const done = new Set<string>();
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const found: Change[] = [];
    for (const result of results) {
      if (result.remedy === undefined || done.has(result.id)) continue;
      const change = remedyChange(result.remedy, result, source);
      done.add(result.id);
      if (change !== undefined) found.push(change);
    }
    // A key the endpoint wants, left to OPENAI_API_KEY while another variable holds one.
    const auth = results.find((r) => r.id === 'auth');
    if (
      auth?.status === 'fail' &&
      /401/.test(auth.detail) &&
      !done.has('key') &&
      settings.keyVariable !== undefined
    ) {
      done.add('key');
      const wanted = settings.keyVariable;
      const instead = isSet(settings.env, wanted) ? undefined : keyVariableInstead(settings.env, wanted);
      if (instead !== undefined)
        found.push({
          why: `key: the endpoint answered 401 and ${wanted} is not set in this shell, ${instead} is (its value is never printed)`,
          edits: [{ op: 'key-variable', variable: instead }],
        });
    }
    if (found.length === 0) break;
    for (const change of found) apply(change, settings);
    changes.push(...found);
    results = await check(settings, options.timeoutMs);
  }
  const endpointChange = endpointPairing(source, settings.backend, changes);
  if (endpointChange !== undefined) changes.push(endpointChange);
  return { before, changes, after: results, target };
}

/** vLLM sends every backend to /v1/completions unless --endpoint says otherwise: the endpoint must follow the
 *  backend that works, whether the backend changed or not. */
function endpointPairing(
  source: BenchSource,
  backend: Backend,
  changes: readonly Change[],
): Change | undefined {
  const changed = changes.some((c) => c.edits.some((e) => e.op === 'set' && e.flag === 'endpoint'));
  if (changed) return undefined;
  const wanted = defaultEndpoint(backend);
  const used = endpointUsed(source, backend);
  if (used.endsWith(wanted)) return undefined;
  const given = source.value('endpoint');
  return {
    why:
      `--endpoint ${given === undefined ? `(absent: ${used})` : used} -> ${wanted}: --backend ${backendName(source)} ` +
      `sends ${backend === 'openai-chat' ? 'chat messages' : 'a completions prompt'}, which only ${wanted} accepts ` +
      '(vLLM sends every backend to /v1/completions unless --endpoint says otherwise: 404 or 422)',
    edits: [{ op: 'set', flag: 'endpoint', value: { text: wanted }, after: 'backend' }],
  };
}
