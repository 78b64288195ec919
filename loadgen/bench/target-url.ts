// From vLLM's --backend / --base-url / --host / --port / --endpoint to the URL requests go to, closing the holes
// vLLM's script leaves open (each one a common support question):
// - --backend openai-chat picks /v1/chat/completions itself (vLLM defaults every backend to /v1/completions);
// - a base URL that already ends in /v1 never becomes /v1/v1/... (vLLM concatenates: 404);
// - a backend whose body does not fit the endpoint is named before the run (vLLM sends it: 422).

import { UsageError } from '../../src/cli/usage-error.js';
import type { WireProtocol } from '../engine/engine.js';

export const BACKENDS = ['openai-chat', 'openai', 'vllm'] as const;
export type Backend = (typeof BACKENDS)[number];

const CHAT_ENDPOINT = '/v1/chat/completions';
const COMPLETIONS_ENDPOINT = '/v1/completions';

export interface TargetInput {
  /** undefined: chosen from the endpoint when one is given, else openai-chat. */
  readonly backend?: Backend;
  readonly baseUrl?: string;
  readonly host: string;
  readonly port: number;
  readonly endpoint?: string;
}

export interface ResolvedTarget {
  readonly backend: Backend;
  readonly protocol: WireProtocol;
  readonly origin: string;
  readonly path: string;
  readonly url: string;
  /** What was adjusted, to print before the run. */
  readonly notes: string[];
}

function protocolOf(backend: Backend): WireProtocol {
  return backend === 'openai-chat' ? 'openai-chat' : 'openai-completions';
}

function isChatPath(path: string): boolean {
  return /\/chat\/completions\/?$/.test(path);
}

function parseBase(text: string): URL {
  try {
    const url = new URL(text);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http(s)');
    return url;
  } catch {
    throw new UsageError(
      `--base-url '${text}' is not an http(s) URL (e.g. https://api.example.com or http://127.0.0.1:8000)`,
    );
  }
}

export function resolveTarget(input: TargetInput): ResolvedTarget {
  const notes: string[] = [];
  const backend: Backend =
    input.backend ?? (input.endpoint !== undefined && !isChatPath(input.endpoint) ? 'openai' : 'openai-chat');
  const endpoint = input.endpoint ?? (backend === 'openai-chat' ? CHAT_ENDPOINT : COMPLETIONS_ENDPOINT);
  if (!endpoint.startsWith('/')) throw new UsageError(`--endpoint must start with '/' (got '${endpoint}')`);
  if (backend === 'openai-chat' && !isChatPath(endpoint)) {
    throw new UsageError(
      `--backend openai-chat sends chat messages, but --endpoint ${endpoint} is not a chat endpoint; the server would ` +
        `answer 422 Unprocessable Entity. Leave --endpoint out (it defaults to ${CHAT_ENDPOINT}) or use --backend openai.`,
    );
  }
  if (backend !== 'openai-chat' && isChatPath(endpoint)) {
    throw new UsageError(
      `--backend ${backend} sends a completions body ("prompt"), but --endpoint ${endpoint} is the chat endpoint; the ` +
        `server would answer 422 Unprocessable Entity. Use --backend openai-chat (or --endpoint ${COMPLETIONS_ENDPOINT}).`,
    );
  }
  const base =
    input.baseUrl === undefined ? new URL(`http://${input.host}:${input.port}`) : parseBase(input.baseUrl);
  if (input.baseUrl !== undefined && (input.host !== '127.0.0.1' || input.port !== 8000)) {
    notes.push('--base-url given: --host and --port are ignored');
  }
  let basePath = base.pathname.replace(/\/+$/, '');
  let path = endpoint;
  if (basePath.endsWith(endpoint.replace(/\/+$/, ''))) {
    notes.push(`--base-url already ends with ${endpoint}: used as it is`);
    path = '';
  } else if (basePath.endsWith('/v1') && endpoint.startsWith('/v1/')) {
    basePath = basePath.slice(0, -'/v1'.length);
    notes.push(`--base-url ends with /v1: requests go to ${basePath}${endpoint} (not /v1/v1/...)`);
  }
  const fullPath = `${basePath}${path}${base.search}`;
  return {
    backend,
    protocol: protocolOf(backend),
    origin: base.origin,
    path: fullPath === '' ? '/' : fullPath,
    url: `${base.origin}${fullPath}`,
    notes,
  };
}
