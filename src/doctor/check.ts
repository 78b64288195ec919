// One line of the doctor's checklist: what was checked, how it went, what was seen, and the exact fix.
export type CheckStatus = 'pass' | 'warn' | 'fail' | 'skip';

export interface CheckResult {
  readonly id: string;
  readonly title: string;
  readonly status: CheckStatus;
  /** What was observed, in one or two sentences. */
  readonly detail: string;
  /** What to change, for warn and fail. */
  readonly fix?: string;
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
