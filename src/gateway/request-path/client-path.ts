// Client paths are canonicalized to one form, `/v1/<endpoint>`, whatever base URL the client was given. Each fix
// gets a stable pattern name (counted in a metric, logged once with a hint) so users can correct their clients.
// Traversal is refused outright: a decoded `.` or `..` segment never reaches an upstream, so no request can
// escape the upstream's API prefix even if the upstream decodes percent-escapes again (however many times), reads
// `..;x` as `..` (servlet path parameters) or normalizes Unicode look-alikes of the dot and slash (NFKC).
import { type KnownProtocol, PROTOCOLS, protocolByFamily } from '../../protocols/index.js';
import { DOUBLED_V1 } from '../../shared/upstream-hints.js';
import { firstInGateway } from '../cluster/worker.js';
import type { LineLog } from '../logs/logger.js';

/**
 * Endpoints accepted without the `/v1` prefix (every protocol's, then embeddings and models); under `/v1/` any
 * endpoint passes through. `messages` and `responses` are here because Anthropic- and Responses-style clients are
 * often given a base URL without `/v1`.
 */
export const KNOWN_ENDPOINTS: readonly string[] = [
  ...PROTOCOLS.map((p) => p.endpoint),
  'embeddings',
  'models',
];

export type PathFix = 'api_prefix' | 'missing_v1' | 'doubled_v1' | 'doubled_slash' | 'trailing_slash';

export const PATH_FIX_HINTS: Readonly<Record<PathFix, string>> = {
  api_prefix:
    "your client's base URL has /api: the gateway serves /v1 directly; set the base URL to http://HOST:PORT/v1",
  missing_v1: "your client's base URL lacks /v1: set it to http://HOST:PORT/v1",
  doubled_v1: `${DOUBLED_V1.what} (the gateway repaired it); ${DOUBLED_V1.fix}`,
  doubled_slash: 'your base URL ends in / and your client adds another: drop the trailing slash',
  trailing_slash: 'the path ends in /: drop the trailing slash',
};

export type CanonicalPath =
  | {
      readonly kind: 'api';
      /** `chat/completions`, `models/x`, ...: what follows `/v1/`, segments kept as the client encoded them. */
      readonly endpoint: string;
      /**
       * The protocol whose family the endpoint belongs to (`messages/count_tokens` is Anthropic Messages'), looked
       * up once here for the whole exchange: how the upstream takes its key, and the span's protocol.
       */
      readonly protocol: KnownProtocol | undefined;
      /** The endpoint is the protocol's own (`messages`, not `messages/count_tokens`): its answers are timed. */
      readonly timed: boolean;
      readonly fixes: readonly PathFix[];
    }
  | { readonly kind: 'outside' }
  | { readonly kind: 'traversal' };

/**
 * The segment percent-decoded until nothing changes, to any depth (`%25252e` is `.` after four rounds; each round
 * that changes anything shortens the text, so this ends); undefined when an escape is malformed.
 */
function decodeFully(segment: string): string | undefined {
  let current = segment;
  for (;;) {
    let next: string;
    try {
      next = decodeURIComponent(current);
    } catch {
      return undefined;
    }
    if (next === current) return current;
    current = next;
  }
}

/**
 * `.` or `..` as some server on the way may read the part: servlet-style servers drop a `;parameter` (`..;x` is
 * `..`), and servers that normalize Unicode read NFKC's `.` into look-alikes (fullwidth `．`, one-dot leader `․`,
 * small full stop `﹒`) and `/` or `\` into fullwidth slashes.
 */
function isDotSegment(part: string): boolean {
  const bare = part.split(';', 1)[0];
  return bare === '.' || bare === '..';
}

/** Printable ASCII without `%`: nothing to decode, nothing NFKC changes. */
const PLAIN_SEGMENT = /^[!-$&-~]*$/;

function isTraversal(segment: string): boolean {
  // A plain segment decodes and normalizes to itself, with no `/` or `\` inside (split on the one, refused on the
  // other): the common path skips the decoding.
  if (PLAIN_SEGMENT.test(segment)) return isDotSegment(segment);
  const decoded = decodeFully(segment);
  if (decoded === undefined) return true;
  return [decoded, decoded.normalize('NFKC')].some((text) => text.split(/[/\\]/).some(isDotSegment));
}

/**
 * `target` is the request target as received less its query (split once, where the request arrives):
 * origin-form or absolute-form (whose host is ignored).
 */
export function canonicalizeClientPath(target: string): CanonicalPath {
  let path = target;
  // Absolute-form (`POST http://host/v1/...`): only the path counts; the host never selects an upstream.
  const scheme = /^[a-z][a-z0-9+.-]*:\/\/[^/]*/i.exec(path);
  if (scheme) path = path.slice(scheme[0].length);
  if (path.includes('\\')) return { kind: 'traversal' };
  const segments = path.split('/');
  const fixes: PathFix[] = [];
  const kept: string[] = [];
  for (let i = 1; i < segments.length; i++) {
    const segment = segments[i] ?? '';
    if (segment === '') {
      if (i === segments.length - 1) fixes.push('trailing_slash');
      else if (!fixes.includes('doubled_slash')) fixes.push('doubled_slash');
      continue;
    }
    if (isTraversal(segment)) return { kind: 'traversal' };
    kept.push(segment);
  }
  let start = 0;
  if (kept[0] === 'api') {
    fixes.push('api_prefix');
    start = 1;
  }
  let v1Count = 0;
  while (kept[start + v1Count] === 'v1') v1Count++;
  const endpoint = kept.slice(start + v1Count).join('/');
  if (endpoint === '') return { kind: 'outside' };
  if (v1Count === 0) {
    if (!KNOWN_ENDPOINTS.includes(endpoint) && !KNOWN_ENDPOINTS.some((e) => endpoint.startsWith(`${e}/`))) {
      return { kind: 'outside' };
    }
    if (start === 0) fixes.push('missing_v1');
  }
  if (v1Count > 1) fixes.push('doubled_v1');
  const protocol = protocolByFamily(endpoint);
  return { kind: 'api', endpoint, protocol, timed: protocol?.endpoint === endpoint, fixes };
}

// Logs each distinct client path pattern that needed fixing once, with the hint that lets the user fix the
// client, and counts every occurrence. The set of logged patterns is capped so hostile paths cannot grow it.
// Under `serve --workers N` the line is still once per gateway: a worker's first sight of a pattern asks the
// primary whether another worker logged it already (src/gateway/cluster/worker.ts).
const MAX_PATTERNS = 1000;

export class PathFixLog {
  readonly #seen = new Set<string>();
  constructor(
    private readonly log: LineLog,
    private readonly counter: { pathFixed(fix: PathFix): void },
  ) {}

  note(path: string, canonical: string, fixes: readonly PathFix[]): void {
    for (const fix of fixes) this.counter.pathFixed(fix);
    if (this.#seen.has(path) || this.#seen.size >= MAX_PATTERNS) return;
    this.#seen.add(path);
    firstInGateway(`path-fix ${path}`, () =>
      this.log.warn(
        { path: path.slice(0, 200), canonical, fixes, hints: fixes.map((f) => PATH_FIX_HINTS[f]) },
        `client path ${path.slice(0, 200)} was served as ${canonical}: ${fixes.map((f) => PATH_FIX_HINTS[f]).join('; ')}`,
      ),
    );
  }
}
