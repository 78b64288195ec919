// Routes a request by the `model` it names: an alias or a listed model picks its upstream (and the alias is
// replaced by the upstream's model ID); anything else goes to the default upstream unchanged. A route may carry
// a mirror (src/gateway/exchange/mirrors.ts), resolved here to its upstream. Built once at start.
import { nearestNames } from '../../shared/nearest-names.js';
import { DEFAULT_MIRROR_MAX_CONCURRENT, type MirrorInput } from '../config/config.js';
import type { ResolvedUpstream } from '../config/config-resolve.js';
import { GatewayError } from './errors.js';

/** A route's mirror with its upstream resolved and its defaults applied (config.ts's MirrorInput says what each is). */
export interface RouteMirror {
  readonly upstream: ResolvedUpstream;
  readonly model: string;
  readonly fraction: number;
  readonly includeSideEffects: boolean;
  readonly maxConcurrent: number;
}

export interface ModelRoute {
  readonly upstream: ResolvedUpstream;
  /** What the upstream receives in `model`. */
  readonly upstreamModel: string;
  readonly mirror: RouteMirror | null;
}

function resolveMirror(
  input: MirrorInput | undefined,
  upstreams: readonly ResolvedUpstream[],
): RouteMirror | null {
  if (input === undefined) return null;
  const upstream = upstreams.find((u) => u.name === input.upstream);
  // config-validate.ts refuses a mirror naming no upstream; this only guards a config built in code.
  if (upstream === undefined)
    throw new GatewayError('internal_error', `mirror upstream '${input.upstream}' is not configured`);
  return {
    upstream,
    model: input.model,
    fraction: input.fraction,
    includeSideEffects: input.includeSideEffects === true,
    maxConcurrent: input.maxConcurrent ?? DEFAULT_MIRROR_MAX_CONCURRENT,
  };
}

export class ModelRoutes {
  readonly #routes = new Map<string, ModelRoute>();
  readonly #default: ResolvedUpstream | undefined;
  readonly #fallback: ResolvedUpstream | undefined;
  /** Aliases and listed models, for `GET /v1/models` and "did you mean". */
  readonly known: readonly { readonly name: string; readonly upstream: string }[];

  constructor(upstreams: readonly ResolvedUpstream[]) {
    const known: { name: string; upstream: string }[] = [];
    for (const upstream of upstreams) {
      for (const model of upstream.models) {
        const name = typeof model === 'string' ? model : model.alias;
        const upstreamModel = typeof model === 'string' ? model : model.id;
        if (!this.#routes.has(name)) {
          const mirror = typeof model === 'string' ? null : resolveMirror(model.mirror, upstreams);
          this.#routes.set(name, { upstream, upstreamModel, mirror });
          known.push({ name, upstream: upstream.name });
        }
      }
    }
    this.known = known;
    this.#default = upstreams.find((u) => u.isDefault);
    this.#fallback = this.#default ?? upstreams[0];
  }

  get defaultUpstream(): ResolvedUpstream | undefined {
    return this.#default;
  }

  /** `model` undefined (no body, no model field): the default upstream, else the first configured. */
  route(model: string | undefined): ModelRoute {
    if (model !== undefined) {
      const route = this.#routes.get(model);
      if (route) return route;
      if (this.#default) return { upstream: this.#default, upstreamModel: model, mirror: null };
      const names = this.known.map((k) => k.name);
      const near = nearestNames(model, names);
      const hint = near.length > 0 ? `did you mean ${near.map((n) => `'${n}'`).join(' or ')}?` : '';
      throw new GatewayError(
        'model_not_found',
        `model '${model}' is not served here: ${hint || `known models: ${names.slice(0, 10).join(', ')}`} (GET /v1/models lists them)`,
      );
    }
    if (!this.#fallback) throw new GatewayError('internal_error', 'no upstream configured');
    return { upstream: this.#fallback, upstreamModel: '', mirror: null };
  }
}
