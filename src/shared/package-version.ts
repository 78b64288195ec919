// tokenmeter's version, read once from package.json (this file sits at the same depth under dist/ as the CLI), and
// the header that carries it on every answer the gateway proxies or originates (GATEWAY_HEADER, below).
import { createRequire } from 'node:module';

let cached: string | undefined;

export function packageVersion(): string {
  if (cached === undefined) {
    const require = createRequire(import.meta.url);
    cached = (require('../../../package.json') as { version: string }).version;
  }
  return cached;
}

// Every answer the gateway proxies or originates says it came through tokenmeter, and which version, so the load
// generator (and a person with curl -i) can tell a gateway from the upstream behind it.
export const GATEWAY_HEADER = 'x-tokenmeter-gateway';
export const GATEWAY_HEADER_VALUE = packageVersion();

/** The SSE comment line a gateway writes before it cuts a stream that had started (the upstream went idle, broke
 *  off or ran past its deadline), followed by why: a comment, so every SSE client skips it, and bench reads it into
 *  the failure's reason (`: tokenmeter: stream cut: upstream 'vllm' sent nothing for 30000 ms ...`). */
export const STREAM_CUT_COMMENT = ': tokenmeter: stream cut: ';
