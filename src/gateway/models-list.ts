// `GET /v1/models` when several upstreams or aliases are configured: the union of every upstream's own list and
// the configured aliases, in OpenAI's list format. An upstream that cannot answer is left out (and logged by the
// caller through its absence), so one dead upstream does not hide the others' models.
import { isJsonObject } from '../shared/json-object.js';
import type { ResolvedUpstream } from './config-resolve.js';
import type { GatewayContext } from './context.js';

interface ModelEntry {
  readonly id: string;
  readonly object: 'model';
  readonly owned_by: string;
  readonly [key: string]: unknown;
}

const LIST_TIMEOUT_MS = 5000;

async function upstreamModels(
  context: GatewayContext,
  upstream: ResolvedUpstream,
  requestId: string,
): Promise<ModelEntry[]> {
  const dispatcher = context.dispatchers.get(upstream);
  if (dispatcher === undefined) return [];
  try {
    const response = await dispatcher.request({
      origin: upstream.base.origin,
      path: `${upstream.base.apiPrefix}/models`,
      method: 'GET',
      headers: {
        ...upstream.headers,
        'x-request-id': requestId,
        ...(upstream.key === null ? {} : { authorization: `Bearer ${upstream.key}` }),
      },
      headersTimeout: LIST_TIMEOUT_MS,
      bodyTimeout: LIST_TIMEOUT_MS,
    });
    const body: unknown = await response.body.json();
    if (response.statusCode !== 200 || !isJsonObject(body) || !Array.isArray(body['data'])) return [];
    return body['data'].filter((m): m is ModelEntry => isJsonObject(m) && typeof m['id'] === 'string');
  } catch {
    return [];
  }
}

export async function listModels(
  context: GatewayContext,
  requestId: string,
): Promise<{ object: 'list'; data: ModelEntry[] }> {
  const lists = await Promise.all(context.config.upstreams.map((u) => upstreamModels(context, u, requestId)));
  const seen = new Set<string>();
  const data: ModelEntry[] = [];
  for (const entry of lists.flat()) {
    if (seen.has(entry.id)) continue;
    seen.add(entry.id);
    data.push(entry);
  }
  for (const known of context.routes.known) {
    if (seen.has(known.name)) continue;
    seen.add(known.name);
    data.push({ id: known.name, object: 'model', owned_by: known.upstream });
  }
  return { object: 'list', data };
}
