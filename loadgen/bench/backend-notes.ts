// What the chosen backend cannot do of what was asked, said once before the run (not per request), so that the
// numbers are read for what they are.

import { type Backend, backendProtocol } from '../../src/protocols/backends.js';

export interface NotedPayload {
  readonly ignoreEos: boolean;
}

export function backendWarnings(backend: Backend, payload: NotedPayload): string[] {
  const warnings: string[] = [];
  if (payload.ignoreEos && !backendProtocol(backend).hasIgnoreEos) {
    // ignore_eos is vLLM's extension of OpenAI's bodies; these protocols have no way to forbid an early stop.
    warnings.push(
      `--ignore-eos has no equivalent in --backend ${backend} and is not sent: output lengths are the model's own ` +
        '(the requested length is only a ceiling), so output token counts, TPOT and throughput are not comparable ' +
        'with an ignore_eos run. A vLLM server may accept it through --extra-body \'{"ignore_eos": true}\'.',
    );
  }
  return warnings;
}
