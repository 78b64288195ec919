// The article's troubleshooting routine as a program: key, proxy variables, base URL shape, reachability and
// auth, model, endpoints and backend, a streamed answer, and its timing. Later steps are skipped once an earlier
// one makes them meaningless (no point streaming from a host that refuses connections).

import { normalizeUpstreamBase, type UpstreamBase } from '../gateway/config/upstream-url.js';
import { KeyScrubber } from '../gateway/exchange/key-scrubber.js';
import { backendProtocol } from '../protocols/backends.js';
import { keyHeader } from '../protocols/index.js';
import { DOUBLED_V1 } from '../shared/upstream-hints.js';
import { UserFacingError } from '../shared/user-facing-error.js';
import { type CheckResult, check, withRemedy } from './check.js';
import {
  type Backend,
  checkEndpoints,
  checkModel,
  checkModelsList,
  type EndpointContext,
} from './endpoint-checks.js';
import { checkKey } from './key-check.js';
import { checkProxy } from './proxy-check.js';
import { checkStream } from './stream-check.js';

export interface DoctorOptions {
  readonly baseUrl: string;
  readonly apiKey: string | undefined;
  readonly apiKeyEnv: string | undefined;
  readonly model: string | undefined;
  readonly backend: Backend;
  /** The --backend as named (vllm sends openai's completions body), for the check's title; `backend` otherwise. */
  readonly backendName?: string;
  readonly timeoutMs: number;
  readonly env: NodeJS.ProcessEnv;
}

function checkBaseUrl(raw: string): { base: UpstreamBase | undefined; result: CheckResult } {
  const title = 'base URL';
  let base: UpstreamBase;
  try {
    base = normalizeUpstreamBase(raw, '--base-url');
  } catch (error) {
    if (error instanceof UserFacingError)
      return { base: undefined, result: check('base-url', title, 'fail', error.message, 'fix --base-url') };
    throw error;
  }
  const path = new URL(raw.trim()).pathname.replace(/\/+$/, '');
  if (path.endsWith('/v1')) {
    const detail = `${raw} ends in /v1: ${DOUBLED_V1.what} (vLLM's benchmark with --base-url is such a client)`;
    return {
      base,
      result: withRemedy(
        check(
          'base-url',
          title,
          'warn',
          detail,
          `give those clients ${base.display}; SDKs (OpenAI, Cline) want ${base.display}/v1`,
        ),
        { kind: 'base-url', baseUrl: base.display },
      ),
    };
  }
  if (path !== base.basePath) {
    return {
      base,
      result: withRemedy(
        check(
          'base-url',
          title,
          'warn',
          `${raw} includes an endpoint path`,
          `use ${base.display} as the base URL`,
        ),
        { kind: 'base-url', baseUrl: base.display },
      ),
    };
  }
  return { base, result: check('base-url', title, 'pass', `API at ${base.display}/v1`) };
}

const skipped = (id: string, title: string, why: string) => check(id, title, 'skip', why);

export async function runDoctor(options: DoctorOptions): Promise<CheckResult[]> {
  const keyed = checkKey({ variable: options.apiKeyEnv, flagValue: options.apiKey }, options.env);
  const results = await runChecks(options, keyed.key, keyed.result);
  return keyed.key === undefined ? results : withoutKey(results, keyed.key);
}

async function runChecks(
  options: DoctorOptions,
  key: string | undefined,
  keyResult: CheckResult,
): Promise<CheckResult[]> {
  const results: CheckResult[] = [keyResult];
  const { base, result: urlResult } = checkBaseUrl(options.baseUrl);
  results.push(urlResult);
  if (!base) return results;
  results.push(await checkProxy(new URL(base.origin), options.env));

  const auth = backendProtocol(options.backend).auth;
  const sent = key === undefined ? undefined : keyHeader(auth, key);
  const ctx: EndpointContext = {
    base,
    headers: sent === undefined ? {} : { [sent.name]: sent.value },
    auth,
    timeoutMs: options.timeoutMs,
    // Named only when a key was sent: an unset variable sent nothing, and its 401 must not blame that variable.
    keySource:
      key === undefined
        ? undefined
        : options.apiKey === undefined
          ? (options.apiKeyEnv ?? 'OPENAI_API_KEY')
          : '--api-key',
  };
  const listed = await checkModelsList(ctx);
  results.push(listed.result);
  if (!listed.reachable || listed.result.status === 'fail') {
    const why = 'skipped: the endpoint must be reachable and accept the key first';
    results.push(
      skipped('model', 'model', why),
      skipped('endpoints', 'endpoints', why),
      skipped('stream', 'streamed answer', why),
    );
    return results;
  }
  const { model, result: modelResult } = checkModel(options.model, listed.models);
  results.push(modelResult);
  if (model === undefined || modelResult.status === 'fail') {
    results.push(
      skipped('endpoints', 'endpoints', 'skipped: needs a served model'),
      skipped('stream', 'streamed answer', 'skipped: needs a served model'),
    );
    return results;
  }
  const endpointResults = await checkEndpoints(ctx, model, options.backend, options.backendName);
  results.push(...endpointResults);
  if (endpointResults.some((r) => r.status === 'fail')) {
    results.push(skipped('stream', 'streamed answer', 'skipped: the backend must fit an endpoint first'));
    return results;
  }
  results.push(...(await checkStream(ctx, model, options.backend)));
  return results;
}

/**
 * The checklist quotes what the endpoint answered, and an endpoint may quote the key it was sent (a 401 saying
 * "Incorrect API key provided: sk-..."): the key is replaced wherever it appears, in every spelling the gateway's
 * scrubber matches, in every text of every line (the corrected command's values included).
 */
function withoutKey(results: readonly CheckResult[], key: string): CheckResult[] {
  const scrubber = new KeyScrubber([key]);
  return results.map((result) => scrubStrings(result, (text) => scrubber.scrubText(text)));
}

function scrubStrings<T>(value: T, scrub: (text: string) => string): T {
  if (typeof value === 'string') return scrub(value) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => scrubStrings(item, scrub)) as T;
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([name, item]) => [name, scrubStrings(item, scrub)]),
  ) as T;
}
