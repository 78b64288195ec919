// From vLLM's --backend / --base-url / --host / --port / --endpoint to the URL requests go to, closing the holes
// vLLM's script leaves open (each one a common support question):
// - each backend picks its own endpoint (vLLM defaults every backend to /v1/completions);
// - a base URL that already ends in /v1 never becomes /v1/v1/... (vLLM concatenates: 404);
// - a backend whose body does not fit the endpoint is named before the run (vLLM sends it: 422).

import {
  BACKEND_OF_FAMILY,
  BACKEND_SPECS,
  type Backend,
  backendProtocol,
  defaultEndpoint,
  endpointFamily,
} from '../../src/protocols/backends.js';
import type { ProtocolName } from '../../src/protocols/index.js';
import { UsageError } from '../../src/shared/user-facing-error.js';

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
  readonly protocol: ProtocolName;
  readonly origin: string;
  readonly path: string;
  readonly url: string;
  /** What was adjusted, to print before the run. */
  readonly notes: string[];
}

/** Without --backend: the one whose body fits --endpoint (a custom path takes a completions body, as in vLLM). */
function defaultBackend(endpoint: string | undefined): Backend {
  if (endpoint === undefined) return 'openai-chat';
  return BACKEND_OF_FAMILY[endpointFamily(endpoint) ?? 'completions'];
}

/** The body of `backend` cannot go to `endpoint`: say so, and what fits, before anything is sent. */
function checkFits(backend: Backend, endpoint: string): void {
  const spec = BACKEND_SPECS[backend];
  const own = backendProtocol(backend).family;
  const family = endpointFamily(endpoint);
  if (family === own || (family === undefined && !spec.requiresOwnPath)) return;
  const what =
    family === undefined ? `is not a ${own} endpoint` : `is the ${family} endpoint, not a ${own} endpoint`;
  const fix =
    family === undefined
      ? `Leave --endpoint out (it defaults to ${defaultEndpoint(backend)}) or use --backend openai (a completions body, for custom paths).`
      : `Use --backend ${BACKEND_OF_FAMILY[family]} for that endpoint (or leave --endpoint out: --backend ${backend} defaults to ${defaultEndpoint(backend)}).`;
  throw new UsageError(
    `--backend ${backend} sends ${spec.bodyDescription}, but --endpoint ${endpoint} ${what}; the server would ` +
      `reject it (422 Unprocessable Entity, or 400). ${fix}`,
  );
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
  const backend = input.backend ?? defaultBackend(input.endpoint);
  const endpoint = input.endpoint ?? defaultEndpoint(backend);
  if (!endpoint.startsWith('/')) throw new UsageError(`--endpoint must start with '/' (got '${endpoint}')`);
  checkFits(backend, endpoint);
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
    protocol: BACKEND_SPECS[backend].protocol,
    origin: base.origin,
    path: fullPath === '' ? '/' : fullPath,
    url: `${base.origin}${fullPath}`,
    notes,
  };
}
