// Faults that answer at once instead of generating, drawn per request from a seeded sequence so a failing run can
// be replayed exactly. (Faults inside a stream, cut and stall, are handled by Generation.)
import type { SeededRandom } from '../shared/random.js';
import type { FaultSwitches } from './config.js';

export type ImmediateFault =
  | { readonly kind: 'error'; readonly status: number }
  | { readonly kind: 'rate-limit'; readonly retryAfterS: number }
  | { readonly kind: 'error-body' };

export function drawImmediateFault(faults: FaultSwitches, random: SeededRandom): ImmediateFault | undefined {
  const roll = random.next();
  if (roll < faults.errorRate) return { kind: 'error', status: faults.errorStatus };
  if (roll < faults.errorRate + faults.rateLimitRate)
    return { kind: 'rate-limit', retryAfterS: faults.retryAfterS };
  if (roll < faults.errorRate + faults.rateLimitRate + faults.errorBodyRate) return { kind: 'error-body' };
  return undefined;
}

export function faultName(fault: ImmediateFault): string {
  if (fault.kind === 'error') return `error ${fault.status}`;
  return fault.kind === 'rate-limit' ? 'rate limited' : 'error body with 200';
}
