// Logs each distinct client path pattern that needed fixing once, with the hint that lets the user fix the
// client, and counts every occurrence. The set of logged patterns is capped so hostile paths cannot grow it.
// Under `serve --workers N` the line is still once per gateway: a worker's first sight of a pattern asks the
// primary whether another worker logged it already (src/gateway/cluster/first-in-gateway.ts).

import { firstInGateway } from '../cluster/first-in-gateway.js';
import type { LineLog } from '../logs/logger.js';
import { PATH_FIX_HINTS, type PathFix } from './client-path.js';

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
