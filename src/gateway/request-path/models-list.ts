// `GET /v1/models` when several upstreams or aliases are configured: the union of every upstream's own list and
// the configured aliases, in OpenAI's list format. An upstream that cannot answer is left out (and logged by the
// caller through its absence), so one dead upstream does not hide the others' models.
//
// The gateway builds this answer from upstream answers, so it bounds what it reads of each (LIST_TIMEOUT_MS for
// the whole exchange, MAX_LIST_BYTES of body, decoded or not, MAX_JSON_DEPTH of nesting; an upstream past a bound
// is left out like a dead one) and scrubs the result of upstream keys (key-scrubber.ts), as it does every answer
// it forwards: an upstream that lists its key as a model id does not hand it out here either.
import { bodyDecoding, decodeWhole } from '../../measure/body-decoding.js';
import { boundedBytes } from '../../shared/bounded-text.js';
import { isJsonObject } from '../../shared/json-object.js';
import type { ResolvedUpstream } from '../config/config-resolve.js';
import type { GatewayContext } from '../context.js';
import { scanWhole } from './body-scan.js';

interface ModelEntry {
  readonly id: string;
  readonly object: 'model';
  readonly owned_by: string;
  readonly [key: string]: unknown;
}

const LIST_TIMEOUT_MS = 5000;
/** Far above real lists (a few KB for vLLM, about 1 MB for the largest hosted catalogues), far below harm. */
export const MAX_LIST_BYTES = 8 * 1024 * 1024;

/** A body compressed although identity was asked for, decoded off the loop and bounded like the raw one. */
async function decoded(
  bytes: Buffer,
  contentEncoding: string | string[] | undefined,
): Promise<Buffer | null> {
  const decoding = bodyDecoding(contentEncoding);
  if ('undecodable' in decoding) return null;
  return decodeWhole(bytes, decoding.codings, MAX_LIST_BYTES);
}

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
        'accept-encoding': 'identity',
        'x-request-id': requestId,
        ...(upstream.key === null ? {} : { authorization: `Bearer ${upstream.key}` }),
      },
      headersTimeout: LIST_TIMEOUT_MS,
      bodyTimeout: LIST_TIMEOUT_MS,
      // The whole exchange, not only each wait: a list trickled a byte at a time is cut too.
      signal: AbortSignal.timeout(LIST_TIMEOUT_MS),
    });
    if (response.statusCode !== 200) {
      await response.body.dump();
      return [];
    }
    const raw = await boundedBytes(response.body, MAX_LIST_BYTES);
    const bytes = raw === null ? null : await decoded(raw, response.headers['content-encoding']);
    // The request bodies' scan first: a list nested past MAX_JSON_DEPTH throws (caught below), and only an object
    // is parsed.
    if (bytes === null || scanWhole(bytes).finish() === null) return [];
    const body: unknown = JSON.parse(bytes.toString('utf8'));
    if (!isJsonObject(body) || !Array.isArray(body['data'])) return [];
    return body['data'].filter((m): m is ModelEntry => isJsonObject(m) && typeof m['id'] === 'string');
  } catch {
    return [];
  }
}

/** The list as the JSON text the client gets, upstream keys scrubbed. */
export async function listModels(context: GatewayContext, requestId: string): Promise<string> {
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
  return context.scrubber.scrubText(JSON.stringify({ object: 'list', data }));
}
