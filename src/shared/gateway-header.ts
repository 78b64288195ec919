// Every answer the gateway proxies or originates says it came through tokenmeter, and which version, so the load
// generator (and a person with curl -i) can tell a gateway from the upstream behind it.
import { packageVersion } from './package-version.js';

export const GATEWAY_HEADER = 'x-tokenmeter-gateway';
export const GATEWAY_HEADER_VALUE = packageVersion();

/** The SSE comment line a gateway writes before it cuts a stream that had started (the upstream went idle, broke
 *  off or ran past its deadline), followed by why: a comment, so every SSE client skips it, and bench reads it into
 *  the failure's reason (`: tokenmeter: stream cut: upstream 'vllm' sent nothing for 30000 ms ...`). */
export const STREAM_CUT_COMMENT = ': tokenmeter: stream cut: ';
