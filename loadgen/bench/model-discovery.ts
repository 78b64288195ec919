// vLLM's benchmark asks the server which model it serves when --model is left out; so do we. When the server
// cannot say, the message names the flag to add, or, when it refused (401, 403...), the doctor's diagnosis of why,
// or, when nothing answered, the connection to check.

import { type NetworkFailureKind, networkFailure } from '../../src/measure/network-failure.js';
import { backendProtocol } from '../../src/protocols/backends.js';
import { keyHeaderShown } from '../../src/protocols/index.js';
import { hintForUpstreamStatus } from '../../src/shared/upstream-hints.js';
import { UserFacingError } from '../../src/shared/user-facing-error.js';
import { Agent, request } from '../engine/undici-send.js';
import type { ResolvedTarget } from './target-url.js';

const TIMEOUT_MS = 10_000;
/** Failures where no server answered at all. */
const UNREACHED: ReadonlySet<NetworkFailureKind> = new Set([
  'refused',
  'dns',
  'tls',
  'connect_timeout',
  'headers_timeout',
]);

function modelsUrl(target: ResolvedTarget): string {
  // /v1/chat/completions -> /v1/models, keeping any prefix the base URL had (https://host/api/v1/...).
  const at = target.path.search(/\/v1\//);
  const prefix = at >= 0 ? target.path.slice(0, at) : '';
  return `${target.origin}${prefix}/v1/models`;
}

/** keySource: where the key sent came from (undefined when none was), for a 401's diagnosis. */
export async function discoverModel(
  target: ResolvedTarget,
  headers: Record<string, string>,
  keySource?: string,
  /** --insecure: the certificate is not verified here either. */
  insecure = false,
): Promise<string> {
  const url = modelsUrl(target);
  let fix = 'add --model MODEL_ID';
  try {
    const response = await request(url, {
      headers,
      headersTimeout: TIMEOUT_MS,
      bodyTimeout: TIMEOUT_MS,
      ...(insecure ? { dispatcher: new Agent({ connect: { rejectUnauthorized: false } }) } : {}),
    });
    const text = await response.body.text();
    if (response.statusCode === 200) {
      const id = (JSON.parse(text) as { data?: Array<{ id?: unknown }> }).data?.[0]?.id;
      if (typeof id === 'string' && id !== '') return id;
    } else if (response.statusCode !== 404) {
      // A refusal is not cured by naming a model: the requests would be refused too.
      const path = new URL(url).pathname;
      fix =
        hintForUpstreamStatus(response.statusCode, {
          path,
          errorText: text,
          // The lookup carries the run's key header (requestHeaders in src/protocols/backends.ts): its protocol's.
          keyHeader: keyHeaderShown(backendProtocol(target.backend).auth),
          ...(keySource ? { keySource } : {}),
        }) ?? fix;
    }
    throw new Error(`HTTP ${response.statusCode}: ${text.slice(0, 200)}`);
  } catch (error) {
    // Nothing answered: naming a model would not help, the requests would fail the same way.
    if (UNREACHED.has(networkFailure(error, false).kind)) {
      throw new UserFacingError(
        `cannot reach ${url} (${(error as Error).message}): check that the server is running and that ` +
          `--base-url points at it ('tokenmeter doctor --base-url ${target.origin}' checks it)`,
      );
    }
    throw new UserFacingError(
      `no --model given and ${url} did not name one (${(error as Error).message}); ${fix}`,
    );
  }
}
