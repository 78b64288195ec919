// The parts of undici a load-generating process uses (Pool and Agent, and `request` for its few side requests),
// loaded from their own files instead of the package's index. The index also loads fetch, WebSocket, EventSource,
// the cache and cookie stores, the mock agents and the proxy agents, about 110 files whose code alone adds some
// 9 MB to the process's RSS, which a bench run, whose footprint is measured against vLLM's client, never uses.
// The types are undici's own (erased at build time, so they load nothing).
import { createRequire } from 'node:module';
import type * as Undici from 'undici';

const load = createRequire(import.meta.url);

export const Pool: typeof Undici.Pool = load('undici/lib/dispatcher/pool.js');
export const Agent: typeof Undici.Agent = load('undici/lib/dispatcher/agent.js');

type RequestOptions = Omit<Undici.Dispatcher.RequestOptions, 'origin' | 'path' | 'method'> & {
  readonly method?: Undici.Dispatcher.HttpMethod;
  readonly dispatcher?: Undici.Dispatcher;
};

const api = load('undici/lib/api/index.js') as {
  request(
    this: Undici.Dispatcher,
    options: Undici.Dispatcher.RequestOptions,
  ): Promise<Undici.Dispatcher.ResponseData>;
};
const { getGlobalDispatcher } = load('undici/lib/global.js') as { getGlobalDispatcher(): Undici.Dispatcher };

/** undici's `request(url, options)`: on `options.dispatcher`, else on undici's global dispatcher, as the index's. */
export function request(url: string, options: RequestOptions = {}): Promise<Undici.Dispatcher.ResponseData> {
  const { dispatcher = getGlobalDispatcher(), ...rest } = options;
  const target = new URL(url);
  return api.request.call(dispatcher, {
    ...rest,
    origin: target.origin,
    path: `${target.pathname}${target.search}`,
    method: rest.method ?? 'GET',
  });
}
