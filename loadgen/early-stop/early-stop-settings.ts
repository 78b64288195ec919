// --stop-on-saturation, --max-error-rate and their window: when a run (bench, or a sweep level) stops because
// its answer is already known. The rules are early-stop.ts's.

/** Which rule stopped a run. */
export type EarlyStopReason = 'saturation' | 'error_rate';

/** Seconds of the sliding window both rules read unless --stop-window says otherwise. */
export const DEFAULT_STOP_WINDOW_S = 10;

export interface EarlyStopSettings {
  /** Stop when achieved falls behind offered over a whole window, or the server's waiting queue grows through it. */
  readonly onSaturation: boolean;
  /** Stop when more than this share of the requests that finished within the window failed. */
  readonly maxErrorRate?: number;
  readonly windowMs: number;
  /** How often the rules are checked (the server metrics interval). */
  readonly checkEveryMs: number;
}

export function stopsEarly(settings: EarlyStopSettings | undefined): settings is EarlyStopSettings {
  return settings !== undefined && (settings.onSaturation || settings.maxErrorRate !== undefined);
}

/** The flag whose rule fired, as the user typed it. */
export function ruleFlag(reason: EarlyStopReason): string {
  return reason === 'saturation' ? '--stop-on-saturation' : '--max-error-rate';
}
