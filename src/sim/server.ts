// The simulator's HTTP surface, on node:http directly: it must write thousands of chunks per second on time, and
// nothing between the timer and the socket should add latency of its own.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { openAIError } from '../shared/openai-error.js';
import { modelNotServed, type SimConfig } from './config.js';
import { anthropicConversation, anthropicMessages } from './protocols/anthropic-messages.js';
import { openAIChat } from './protocols/openai.js';
import { type GenerationRequest, RequestRejection, type SimProtocol } from './protocols/protocol.js';
import { asObject, optionalModel } from './protocols/request-fields.js';
import type { SimulatorState } from './simulator-state.js';
import { sendJson, startGeneration } from './start-generation.js';

const MAX_BODY_BYTES = 8 * 1024 * 1024;
const MODELS_PATH = '/v1/models';
const COUNT_TOKENS_PATH = '/v1/messages/count_tokens';

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

/** The model as OpenAI's /v1/models lists it, with vLLM's extra fields. */
function openAIModel(config: SimConfig, id: string): object {
  return {
    id,
    object: 'model',
    created: 0,
    owned_by: 'tokenmeter-sim',
    root: id,
    parent: null,
    max_model_len: config.timing.maxModelLen,
  };
}

/** The model as Anthropic's Models API shows it. */
function anthropicModel(id: string): object {
  return { type: 'model', id, display_name: id, created_at: '1970-01-01T00:00:00Z' };
}

/** Anthropic's clients send `anthropic-version` on every request: they get Anthropic's shapes. */
function isAnthropicClient(req: IncomingMessage): boolean {
  return req.headers['anthropic-version'] !== undefined;
}

function modelsList(config: SimConfig, anthropic: boolean): object {
  const ids = config.servedModelNames;
  if (anthropic) {
    return { data: ids.map(anthropicModel), has_more: false, first_id: ids[0], last_id: ids[ids.length - 1] };
  }
  return { object: 'list', data: ids.map((id) => openAIModel(config, id)) };
}

/** GET /v1/models and /v1/models/{id} (the id URL-encoded or not: model names hold slashes). */
function sendModels(state: SimulatorState, req: IncomingMessage, res: ServerResponse, path: string): void {
  const { config } = state;
  const anthropic = isAnthropicClient(req);
  const protocol = anthropic ? anthropicMessages : openAIChat;
  if (config.apiKey !== undefined && !protocol.hasKey(req, config.apiKey)) {
    rejectAuth(res, protocol);
  } else if (path === MODELS_PATH) {
    sendJson(res, 200, modelsList(config, anthropic));
  } else {
    const id = decodeURIComponent(path.slice(MODELS_PATH.length + 1));
    const unknown = modelNotServed(config, id);
    if (unknown !== undefined) sendJson(res, 404, protocol.error(404, unknown, 'model_not_found', 'model'));
    else sendJson(res, 200, anthropic ? anthropicModel(id) : openAIModel(config, id));
  }
}

function notFound(res: ServerResponse, path: string, state: SimulatorState): void {
  const prefix = state.config.pathPrefix;
  const api = [MODELS_PATH, ...state.protocols.keys(), COUNT_TOKENS_PATH].map((p) => prefix + p);
  const message = `${path} not found; this server answers ${[...api, '/health', '/metrics'].join(', ')}`;
  sendJson(res, 404, openAIError(message, 'invalid_request_error', 'not_found'));
}

function rejectAuth(res: ServerResponse, protocol: SimProtocol): void {
  const how = protocol === anthropicMessages ? '"x-api-key: <key>"' : '"Authorization: Bearer <key>"';
  sendJson(
    res,
    401,
    protocol.error(401, `Incorrect API key provided. Send it as ${how}.`, 'invalid_api_key'),
  );
}

/** Reads and parses a JSON body; undefined when it answered the error (413, 400) itself. */
async function readJson(req: IncomingMessage, res: ServerResponse, protocol: SimProtocol): Promise<unknown> {
  const raw = await readBody(req);
  if (raw === undefined) {
    sendJson(res, 413, protocol.error(413, 'request body too large or unreadable', 'request_too_large'));
    return undefined;
  }
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    sendJson(res, 400, protocol.error(400, 'the request body is not valid JSON', 'invalid_json'));
    return undefined;
  }
}

function sendRejection(res: ServerResponse, protocol: SimProtocol, error: unknown): void {
  if (!(error instanceof RequestRejection)) throw error;
  const code = error.status === 422 ? 'unprocessable_entity' : 'invalid_value';
  sendJson(res, error.status, protocol.error(error.status, error.message, code, error.param));
}

/** POST /v1/messages/count_tokens: the prompt a Messages body would have, counted as the answer's usage counts it. */
async function countTokens(state: SimulatorState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { config } = state;
  if (config.apiKey !== undefined && !anthropicMessages.hasKey(req, config.apiKey)) {
    return rejectAuth(res, anthropicMessages);
  }
  const body = await readJson(req, res, anthropicMessages);
  if (body === undefined) return;
  let tokens: number;
  try {
    const b = asObject(body);
    const model = optionalModel(b);
    const unknown = model === undefined ? undefined : modelNotServed(config, model);
    if (unknown !== undefined) {
      return sendJson(res, 404, anthropicMessages.error(404, unknown, 'model_not_found', 'model'));
    }
    tokens = anthropicConversation(b).prompt.blocks.tokens;
  } catch (error) {
    return sendRejection(res, anthropicMessages, error);
  }
  sendJson(res, 200, { input_tokens: tokens });
}

export function createSimulatorServer(state: SimulatorState): Server {
  return createServer((req, res) => {
    handle(state, req, res).catch((error: unknown) => {
      // A bug in the simulator must not look like a model answer: say so plainly.
      if (res.headersSent) return void res.destroy();
      sendJson(res, 500, openAIError(`simulator error: ${String(error)}`, 'server_error', null));
    });
  });
}

/** The API path under --path-prefix (`/api/v1/models` -> `/v1/models`); undefined when outside it. */
function apiPath(path: string, prefix: string): string | undefined {
  if (prefix === '') return path;
  return path.startsWith(`${prefix}/`) ? path.slice(prefix.length) : undefined;
}

async function handle(state: SimulatorState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { config } = state;
  const receivedAtMs = performance.now();
  const rawPath = (req.url ?? '/').split('?')[0] ?? '/';
  if (req.method === 'GET' && (await handleGet(state, res, rawPath))) return;
  if (req.method === 'DELETE' && rawPath === '/sim/stats') {
    // Lets a benchmark measure steady state: reset once every stream is open, read again at the end.
    state.lateness.reset();
    res.writeHead(204).end();
    return;
  }
  const path = apiPath(rawPath, config.pathPrefix);
  if (path === undefined) return notFound(res, rawPath, state);
  if (req.method === 'GET' && (path === MODELS_PATH || path.startsWith(`${MODELS_PATH}/`))) {
    return sendModels(state, req, res, path);
  }
  if (req.method === 'POST' && path === COUNT_TOKENS_PATH) return countTokens(state, req, res);
  const protocol = state.protocols.get(path);
  if (req.method !== 'POST' || protocol === undefined) return notFound(res, rawPath, state);
  if (config.apiKey !== undefined && !protocol.hasKey(req, config.apiKey)) return rejectAuth(res, protocol);
  const body = await readJson(req, res, protocol);
  if (body === undefined) return;
  let request: GenerationRequest;
  try {
    request = protocol.parse(body);
  } catch (error) {
    return sendRejection(res, protocol, error);
  }
  startGeneration(state, protocol, request, req, res, receivedAtMs);
}

/** The read-only endpoints; true when the path was one of them. */
async function handleGet(state: SimulatorState, res: ServerResponse, path: string): Promise<boolean> {
  if (path === '/health') {
    res.writeHead(200).end();
  } else if (path === '/metrics') {
    const { registry } = state.env.metrics;
    res.writeHead(200, { 'content-type': registry.contentType });
    res.end(await registry.metrics());
  } else if (path === '/sim/stats') {
    const { scheduler, clock } = state.env;
    const { kv } = scheduler;
    sendJson(res, 200, {
      running: scheduler.running,
      waiting: scheduler.waiting,
      kv: {
        capacityBlocks: kv.capacityBlocks,
        capacityTokens: state.capacity.tokens,
        capacitySource: state.capacity.source,
        usedBlocks: kv.usedBlocks,
        peakUsedBlocks: kv.peakUsedBlocks,
        evictableCachedBlocks: kv.evictableBlocks,
        prefixCaching: kv.prefixCaching,
        preemptions: scheduler.preemptions,
      },
      pendingEmissions: clock.pending,
      emissionLateness: state.lateness.summary(),
    });
  } else if (path.startsWith('/sim/truth/')) {
    const truth = state.env.truths.get(decodeURIComponent(path.slice('/sim/truth/'.length)));
    if (truth) sendJson(res, 200, truth);
    else sendJson(res, 404, openAIError('no such request id', 'invalid_request_error', 'not_found'));
  } else {
    return false;
  }
  return true;
}
