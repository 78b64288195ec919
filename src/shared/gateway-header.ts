// Every answer the gateway proxies or originates says it came through tokenmeter, and which version, so the load
// generator (and a person with curl -i) can tell a gateway from the upstream behind it.
import { packageVersion } from './package-version.js';

export const GATEWAY_HEADER = 'x-tokenmeter-gateway';
export const GATEWAY_HEADER_VALUE = packageVersion();
