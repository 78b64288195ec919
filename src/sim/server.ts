// The simulator's HTTP surface, on node:http directly: it must write thousands of chunks per second on time, and
// nothing between the timer and the socket should add latency of its own.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { openAIError } from '../shared/openai-error.js';
import { hashSeed, SeededRandom } from '../shared/random.js';
import { naturalLength, planAnswer } from './answer-text.js';
import { BatchScheduler } from './batch-scheduler.js';
import {
  type CompletionRequest,
  type Endpoint,
  parseCompletionRequest,
  RequestRejection,
} from './completion-request.js';
import type { SimConfig } from './config.js';
import { EmissionClock } from './emission-clock.js';
import { Generation, type GenerationEnvironment } from './generation.js';
import { LatenessStats } from './lateness-stats.js';
import { errorInsteadOfChoices } from './openai-wire.js';
import { newTruth, TruthStore } from './request-truth.js';
import { SimMetrics } from './sim-metrics.js';

const MAX_BODY_BYTES = 8 * 1024 * 1024;

export interface SimulatorState {
  readonly config: SimConfig;
  readonly env: GenerationEnvironment;
  readonly lateness: LatenessStats;
  readonly faultRandom: SeededRandom;
  ordinal: number;
}

export function createSimulatorState(config: SimConfig): SimulatorState {
  const metrics = new SimMetrics();
  const lateness = new LatenessStats();
  const modelLabel = { model_name: config.servedModelNames[0] as string };
  const scheduler = new BatchScheduler(
    config.timing.maxNumSeqs,
    config.timing.batchSlowdown,
    (running, waiting) => {
      metrics.running.set(modelLabel, running);
      metrics.waiting.set(modelLabel, waiting);
    },
  );
  const clock = new EmissionClock((lateMs) => {
    lateness.record(lateMs);
    metrics.lateness.observe(lateMs / 1000);
  });
  const truths = new TruthStore(config.truthCapacity, config.truthLog);
  return {
    config,
    env: { timing: config.timing, clock, scheduler, metrics, truths },
    lateness,
    faultRandom: new SeededRandom(hashSeed(config.seed, 'faults')),
    ordinal: 0,
  };
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(text);
}

function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on('data', (part: Buffer) => {
      size += part.length;
      if (size <= MAX_BODY_BYTES) parts.push(part);
    });
    req.on('end', () => resolve(size > MAX_BODY_BYTES ? undefined : Buffer.concat(parts)));
    req.on('error', () => resolve(undefined));
  });
}

function authorized(config: SimConfig, req: IncomingMessage): boolean {
  if (config.apiKey === undefined) return true;
  const header = req.headers.authorization ?? '';
  return header === `Bearer ${config.apiKey}`;
}

function modelsList(config: SimConfig): object {
  return {
    object: 'list',
    data: config.servedModelNames.map((id) => ({
      id,
      object: 'model',
      created: 0,
      owned_by: 'tokenmeter-sim',
      root: id,
      parent: null,
      max_model_len: config.timing.maxModelLen,
    })),
  };
}

function notFound(res: ServerResponse, path: string, config: SimConfig): void {
  const paths = [
    '/v1/models',
    '/v1/chat/completions',
    ...(config.chatOnly ? [] : ['/v1/completions']),
    '/health',
  ];
  sendJson(
    res,
    404,
    openAIError(`${path} not found; this server answers ${paths.join(', ')}`, 'not_found', null),
  );
}

export function createSimulatorServer(state: SimulatorState): Server {
  return createServer((req, res) => {
    handle(state, req, res).catch((error: unknown) => {
      // A bug in the simulator must not look like a model answer: say so plainly.
      if (!res.headersSent)
        sendJson(res, 500, openAIError(`simulator error: ${String(error)}`, 'server_error', null));
      else res.destroy();
    });
  });
}

async function handle(state: SimulatorState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { config } = state;
  const receivedAtMs = performance.now();
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  if (req.method === 'GET') {
    if (path === '/health') return void res.writeHead(200).end();
    if (path === '/metrics') {
      const { registry } = state.env.metrics;
      res.writeHead(200, { 'content-type': registry.contentType });
      return void res.end(await registry.metrics());
    }
    if (path === '/v1/models') {
      if (!authorized(config, req)) return rejectAuth(res);
      return sendJson(res, 200, modelsList(config));
    }
    if (path === '/sim/stats') return sendJson(res, 200, stats(state));
    if (path.startsWith('/sim/truth/')) {
      const truth = state.env.truths.get(decodeURIComponent(path.slice('/sim/truth/'.length)));
      return truth
        ? sendJson(res, 200, truth)
        : sendJson(res, 404, openAIError('no such request id', 'not_found', null));
    }
  }
  if (req.method === 'DELETE' && path === '/sim/stats') {
    // Lets a benchmark measure steady state: reset once every stream is open, read again at the end.
    state.lateness.reset();
    res.writeHead(204).end();
    return;
  }
  const endpoint: Endpoint | undefined =
    path === '/v1/chat/completions'
      ? 'chat'
      : path === '/v1/completions' && !config.chatOnly
        ? 'completions'
        : undefined;
  if (req.method !== 'POST' || endpoint === undefined) return notFound(res, path, config);
  if (!authorized(config, req)) return rejectAuth(res);
  const raw = await readBody(req);
  if (raw === undefined) {
    return sendJson(
      res,
      413,
      openAIError('request body too large or unreadable', 'invalid_request_error', null),
    );
  }
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    return sendJson(
      res,
      400,
      openAIError('the request body is not valid JSON', 'invalid_request_error', null),
    );
  }
  let request: CompletionRequest;
  try {
    request = parseCompletionRequest(endpoint, body);
  } catch (error) {
    if (!(error instanceof RequestRejection)) throw error;
    const code = error.status === 422 ? 'unprocessable_entity' : 'invalid_value';
    return sendJson(
      res,
      error.status,
      openAIError(error.message, 'invalid_request_error', code, error.param),
    );
  }
  startGeneration(state, req, res, request, receivedAtMs);
}

function rejectAuth(res: ServerResponse): void {
  sendJson(
    res,
    401,
    openAIError(
      'Incorrect API key provided. Send it as "Authorization: Bearer <key>".',
      'invalid_request_error',
      'invalid_api_key',
    ),
  );
}

function startGeneration(
  state: SimulatorState,
  req: IncomingMessage,
  res: ServerResponse,
  request: CompletionRequest,
  receivedAtMs: number,
): void {
  const { config, env } = state;
  const model = request.model ?? (config.servedModelNames[0] as string);
  if (!config.servedModelNames.includes(model)) {
    const known = config.servedModelNames.join(', ');
    sendJson(
      res,
      404,
      openAIError(
        `The model \`${model}\` does not exist. Served models: ${known}`,
        'invalid_request_error',
        'model_not_found',
        'model',
      ),
    );
    return;
  }
  const maxLen = config.timing.maxModelLen;
  const maxTokens = request.maxTokens ?? maxLen - request.promptTokens;
  if (request.promptTokens + maxTokens > maxLen) {
    const message = `This model's maximum context length is ${maxLen} tokens. However, you requested ${request.promptTokens + maxTokens} tokens (${request.promptTokens} in the messages, ${maxTokens} in the completion).`;
    sendJson(res, 400, openAIError(message, 'invalid_request_error', 'context_length_exceeded'));
    return;
  }
  const ordinal = state.ordinal++;
  const headerId = req.headers['x-request-id'];
  const requestId = typeof headerId === 'string' && headerId !== '' ? headerId : randomUUID();
  const truth = newTruth(requestId, request.endpoint, model, request.stream, receivedAtMs);
  truth.promptTokens = request.promptTokens;
  env.truths.add(truth);
  env.metrics.promptTokens.inc({ model_name: model }, request.promptTokens);

  const fault = drawFault(state);
  if (fault) {
    truth.fault = fault.name;
    truth.status = fault.status;
    truth.endedAtMs = performance.now();
    env.truths.finish(truth);
    sendJson(res, fault.status, fault.body, { 'x-request-id': requestId, ...fault.headers });
    return;
  }
  // Greedy decoding (temperature 0) answers a prompt the same way every time; sampling varies with each request,
  // and both are reproducible under the same --seed.
  const variant = request.temperature === 0 ? 'greedy' : ordinal;
  const textRandom = new SeededRandom(hashSeed(config.seed, model, request.promptText, variant));
  const eosAfter = naturalLength(textRandom, config.timing.eosMedianTokens);
  const answer = planAnswer(textRandom, maxTokens, eosAfter, request.ignoreEos, request.stop);
  const jitter = new SeededRandom(hashSeed(config.seed, 'jitter', ordinal));
  new Generation(env, request, model, answer, jitter, config.faults, truth, res).start();
}

interface DrawnFault {
  readonly name: string;
  readonly status: number;
  readonly body: unknown;
  readonly headers: Record<string, string>;
}

/** Faults decided per request from a seeded sequence, so a failing run can be replayed exactly. */
function drawFault(state: SimulatorState): DrawnFault | undefined {
  const f = state.config.faults;
  const roll = state.faultRandom.next();
  if (roll < f.errorRate) {
    return {
      name: `error ${f.errorStatus}`,
      status: f.errorStatus,
      body: openAIError(
        `simulated upstream failure (status ${f.errorStatus})`,
        'server_error',
        'simulated_error',
      ),
      headers: {},
    };
  }
  if (roll < f.errorRate + f.rateLimitRate) {
    return {
      name: 'rate limited',
      status: 429,
      body: openAIError(
        'Rate limit reached: retry after the time in Retry-After.',
        'rate_limit_error',
        'rate_limit_exceeded',
      ),
      headers: { 'retry-after': String(f.retryAfterS) },
    };
  }
  if (roll < f.errorRate + f.rateLimitRate + f.errorBodyRate) {
    return { name: 'error body with 200', status: 200, body: errorInsteadOfChoices(), headers: {} };
  }
  return undefined;
}

function stats(state: SimulatorState): object {
  const { scheduler, clock } = state.env;
  return {
    running: scheduler.running,
    waiting: scheduler.waiting,
    pendingEmissions: clock.pending,
    emissionLateness: state.lateness.summary(),
  };
}
