// tokenmeter's version, read once from package.json (this file sits at the same depth under dist/ as the CLI).
import { createRequire } from 'node:module';

let cached: string | undefined;

export function packageVersion(): string {
  if (cached === undefined) {
    const require = createRequire(import.meta.url);
    cached = (require('../../../package.json') as { version: string }).version;
  }
  return cached;
}
