// Why the knee is where it is, when the levels read the server's metrics: the first level that fell behind (or
// the lowest, past the knee) diagnosed by loadgen/server-metrics/server-verdict.ts, beside the last level that
// kept up, so the sentence shows what changed across the knee and names the vLLM setting to move it.

import { diagnoseServer, type ServerBound } from '../server-metrics/server-verdict.js';
import type { Knee } from './knee.js';

export interface KneeCause {
  readonly bound: ServerBound;
  readonly sentence: string;
}

const rps = (rate: number): string => `${rate.toFixed(2)} req/s`;

export function kneeCause(knee: Knee): KneeCause | null {
  const bad = knee.firstBad;
  if (bad?.server == null) return null;
  const diagnosis = diagnoseServer(bad.server, bad.clientTtft ?? null);
  const good = knee.lastGood?.server;
  const below =
    good == null || knee.lastGood === undefined
      ? ''
      : ` At ${rps(knee.lastGood.offeredRps)} KV cache usage peaked at ${
          good.peakKvUsage === null ? 'an unexported level' : `${(good.peakKvUsage * 100).toFixed(1)}%`
        }, with ${good.preemptions ?? 0} preemptions and at most ${good.maxWaiting ?? 0} requests waiting.`;
  return {
    bound: diagnosis.bound,
    sentence: `Why: at ${rps(bad.offeredRps)}, where it fell behind, the server was ${diagnosis.sentence}.${below}`,
  };
}
