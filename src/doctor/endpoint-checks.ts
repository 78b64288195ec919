// The checks that talk to the endpoint, in the article's order: reachable and authorized (GET /v1/models), the
// model, which endpoints answer and which backend fits them.
import type { UpstreamBase } from '../gateway/config/upstream-url.js';
import { BACKEND_SPECS, BACKENDS, type Backend as BenchBackend } from '../protocols/backends.js';
import { keyHeaderShown, protocolByName, type UpstreamAuth } from '../protocols/index.js';
import { nearestNames } from '../shared/nearest-names.js';
import {
  BENCHMARK_BACKEND_FLAGS,
  hintForUpstreamStatus,
  looksLikeFilesystemPath,
  unservedModelFix,
} from '../shared/upstream-hints.js';
import { UsageError } from '../shared/user-facing-error.js';
import { type CheckResult, check, withRemedy } from './check.js';
import { describeNetworkError, errorMessageIn, type ProbeAnswer, probe } from './http-probe.js';

/**
 * The backends the doctor checks, by bench's names (src/protocols/backends.ts, the one table): `openai-chat` sends
 * chat messages, `openai` a completions prompt (as `vllm` does, which is checked as `openai`).
 */
export type Backend = Extract<BenchBackend, 'openai-chat' | 'openai'>;

/** bench's --backend `name` as the doctor checks it; a UsageError for a name the doctor does not check. */
export function doctorBackend(name: string): Backend {
  if (!(BACKENDS as readonly string[]).includes(name))
    throw new UsageError(`--backend ${name} is not one of vLLM's: ${BACKENDS.join(', ')}`);
  const protocol = BACKEND_SPECS[name as BenchBackend].protocol;
  if (protocol === 'openai-chat') return 'openai-chat';
  if (protocol === 'openai-completions') return 'openai';
  throw new UsageError(
    `--backend ${name}: doctor checks OpenAI chat and completions endpoints only; try this endpoint with 'tokenmeter bench --smoke --backend ${name}'`,
  );
}

export interface EndpointContext {
  readonly base: UpstreamBase;
  /** The key, in the header `auth` names (empty when none is sent). */
  readonly headers: Record<string, string>;
  /** How the backend's endpoints take the key (the protocol table's), for the headers and a 401's hint. */
  readonly auth: UpstreamAuth;
  readonly timeoutMs: number;
  /** Where the key that was sent came from (see HintContext.keySource); undefined when none was sent. */
  readonly keySource: string | undefined;
}

export function endpointUrl(base: UpstreamBase, endpoint: string): string {
  return `${base.origin}${base.apiPrefix}${endpoint}`;
}

function failedAnswer(
  id: string,
  title: string,
  answer: ProbeAnswer,
  where: string,
  ctx: EndpointContext,
  path: string,
): CheckResult {
  if (answer.kind === 'error') {
    const { detail, fix } = describeNetworkError(answer.code, where);
    return check(id, title, 'fail', detail, fix);
  }
  const message = errorMessageIn(answer.body);
  const hint = hintForUpstreamStatus(answer.status, {
    path,
    errorText: message,
    keyHeader: keyHeaderShown(ctx.auth),
    ...(ctx.keySource ? { keySource: ctx.keySource } : {}),
  });
  const detail = `${where} answered ${answer.status}: ${message}`;
  return check(id, title, 'fail', detail, hint ?? 'see the message above');
}

/** GET /v1/models: reachable, authorized, and the list of model IDs (undefined when the endpoint has no list). */
export async function checkModelsList(
  ctx: EndpointContext,
): Promise<{ result: CheckResult; models: string[] | undefined; reachable: boolean }> {
  const path = `${ctx.base.apiPrefix}/models`;
  const url = `${ctx.base.origin}${path}`;
  const answer = await probe(url, { headers: ctx.headers, timeoutMs: ctx.timeoutMs });
  const title = 'reachable and authorized';
  if (answer.kind === 'response' && answer.status === 200) {
    const models = modelIds(answer.body);
    return {
      result: check('auth', title, 'pass', `GET ${url}: 200, ${models.length} model(s)`),
      models,
      reachable: true,
    };
  }
  if (answer.kind === 'response' && answer.status === 404) {
    const detail = `GET ${url}: 404 (this endpoint does not list models; auth is checked with the requests below)`;
    return {
      result: check('auth', title, 'warn', detail, 'pass --model with the ID the provider registered'),
      models: undefined,
      reachable: true,
    };
  }
  return {
    result: failedAnswer('auth', title, answer, `GET ${url}`, ctx, path),
    models: undefined,
    reachable: answer.kind === 'response',
  };
}

function modelIds(body: string): string[] {
  try {
    const parsed = JSON.parse(body) as { data?: Array<{ id?: unknown }> };
    return (parsed.data ?? []).map((m) => m.id).filter((id): id is string => typeof id === 'string');
  } catch {
    return [];
  }
}

/** The model to use and whether the endpoint serves it. */
export function checkModel(
  asked: string | undefined,
  models: string[] | undefined,
): { model: string | undefined; result: CheckResult } {
  const title = 'model';
  if (asked === undefined) {
    const first = models?.[0];
    if (first === undefined)
      return {
        model: undefined,
        result: check('model', title, 'fail', 'no --model given and none listed', 'pass --model <model ID>'),
      };
    return {
      model: first,
      result: check('model', title, 'pass', `no --model given: using '${first}', the first listed`),
    };
  }
  const isPath = looksLikeFilesystemPath(asked);
  if (models === undefined || models.includes(asked)) {
    return isPath && models === undefined
      ? {
          model: asked,
          result: check(
            'model',
            title,
            'warn',
            `'${asked}' is a filesystem path`,
            'servers register a model ID; a local weights path only works where vLLM was started with that path',
          ),
        }
      : { model: asked, result: check('model', title, 'pass', `'${asked}' is served`) };
  }
  const nearest = nearestNames(asked.split('/').pop() ?? asked, models);
  const suggestions = (nearest.length > 0 ? nearest : models.slice(0, 3)).map((m) => `'${m}'`).join(', ');
  const what = isPath ? `'${asked}' is a local weights path, not a model ID` : `'${asked}' is not served`;
  const served = nearest[0] ?? models[0];
  const result = check(
    'model',
    title,
    'fail',
    `${what}; served: ${suggestions}`,
    unservedModelFix(asked, served),
  );
  return {
    model: asked,
    result: served === undefined ? result : withRemedy(result, { kind: 'model', model: served }),
  };
}

/** Which of the chat and completions endpoints answer, and whether the chosen backend fits. */
export async function checkEndpoints(
  ctx: EndpointContext,
  model: string,
  backend: Backend,
  backendName: string = backend,
): Promise<CheckResult[]> {
  const chatUrl = endpointUrl(ctx.base, `/${protocolByName('openai-chat').endpoint}`);
  const completionsUrl = endpointUrl(ctx.base, `/${protocolByName('openai-completions').endpoint}`);
  const common = { method: 'POST' as const, headers: ctx.headers, timeoutMs: ctx.timeoutMs };
  const [chat, completions] = await Promise.all([
    probe(chatUrl, {
      ...common,
      body: { model, messages: [{ role: 'user', content: 'ping' }], max_tokens: 1 },
    }),
    probe(completionsUrl, { ...common, body: { model, prompt: 'ping', max_tokens: 1 } }),
  ]);
  const ok = (a: ProbeAnswer) => a.kind === 'response' && a.status >= 200 && a.status < 300;
  const show = (a: ProbeAnswer) => (a.kind === 'response' ? String(a.status) : a.code);
  const summary = `/v1/chat/completions: ${show(chat)}, /v1/completions: ${show(completions)}`;
  const results = [check('endpoints', 'endpoints', ok(chat) || ok(completions) ? 'pass' : 'fail', summary)];
  const [mine, other, mineUrl, otherBackend]: [ProbeAnswer, ProbeAnswer, string, Backend] =
    backend === 'openai-chat'
      ? [chat, completions, chatUrl, 'openai']
      : [completions, chat, completionsUrl, 'openai-chat'];
  const title = `backend ${backendName} fits`;
  if (ok(mine)) {
    results.push(
      check(
        'backend',
        title,
        'pass',
        `a ${backend === 'openai-chat' ? 'chat' : 'completions'} body to ${new URL(mineUrl).pathname} works`,
      ),
    );
  } else if (ok(other)) {
    const flags = BENCHMARK_BACKEND_FLAGS[otherBackend === 'openai-chat' ? 'chat' : 'completions'];
    const otherPath = new URL(backend === 'openai-chat' ? completionsUrl : chatUrl).pathname;
    results.push(
      withRemedy(
        check(
          'backend',
          title,
          'fail',
          `${new URL(mineUrl).pathname} answered ${show(mine)} but ${otherPath} works`,
          `use ${flags}`,
        ),
        { kind: 'backend', backend: otherBackend },
      ),
    );
  } else {
    results.push(failedAnswer('backend', title, mine, `POST ${mineUrl}`, ctx, new URL(mineUrl).pathname));
  }
  return results;
}
