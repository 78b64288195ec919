// One line of the doctor's checklist: what was checked, how it went, what was seen, and the exact fix.
import type { Outcome } from '../measure/outcome.js';

export type CheckStatus = 'pass' | 'warn' | 'fail' | 'skip';

export interface CheckResult {
  readonly id: string;
  readonly title: string;
  readonly status: CheckStatus;
  /** What was observed, in one or two sentences. */
  readonly detail: string;
  /** What to change, for warn and fail. */
  readonly fix?: string;
  /** For a check that made a real request: how it ended, by the rule the gateway and load generator use. */
  readonly outcome?: Outcome;
}

export function check(
  id: string,
  title: string,
  status: CheckStatus,
  detail: string,
  fix?: string,
): CheckResult {
  return fix === undefined ? { id, title, status, detail } : { id, title, status, detail, fix };
}

/** The same line, saying how the request it made ended. */
export function withOutcome(result: CheckResult, outcome: Outcome): CheckResult {
  return { ...result, outcome };
}
