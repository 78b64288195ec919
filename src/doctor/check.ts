// One line of the doctor's checklist: what was checked, how it went, what was seen, and the exact fix; and the
// checklist as text (formatChecklist, at the end).
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
  /** For a failure the benchmark's settings can fix: the setting to change (applied by src/doctor/command-line). */
  readonly remedy?: Remedy;
}

/** A change to a benchmark's settings that resolves a failing line; its `fix` text says the same in words. */
export type Remedy =
  | { readonly kind: 'backend'; readonly backend: 'openai-chat' | 'openai' }
  | { readonly kind: 'model'; readonly model: string }
  | { readonly kind: 'base-url'; readonly baseUrl: string }
  | { readonly kind: 'unset-proxy'; readonly variables: readonly string[] };

export function check(
  id: string,
  title: string,
  status: CheckStatus,
  detail: string,
  fix?: string,
): CheckResult {
  return fix === undefined ? { id, title, status, detail } : { id, title, status, detail, fix };
}

/** The same line, with the setting that fixes it. */
export function withRemedy(result: CheckResult, remedy: Remedy): CheckResult {
  return { ...result, remedy };
}

/** The same line, saying how the request it made ended. */
export function withOutcome(result: CheckResult, outcome: Outcome): CheckResult {
  return { ...result, outcome };
}

const MARKS: Record<CheckStatus, string> = { pass: '[ok]  ', warn: '[warn]', fail: '[FAIL]', skip: '[skip]' };

export function formatChecklist(heading: string, results: readonly CheckResult[]): string {
  const lines = [heading, ''];
  for (const r of results) {
    lines.push(`${MARKS[r.status]} ${r.title}: ${r.detail}`);
    if (r.fix !== undefined && (r.status === 'fail' || r.status === 'warn'))
      lines.push(`       fix: ${r.fix}`);
  }
  const count = (s: CheckStatus) => results.filter((r) => r.status === s).length;
  lines.push(
    '',
    `doctor: ${count('pass')} ok, ${count('warn')} warnings, ${count('fail')} failing, ${count('skip')} skipped`,
  );
  return `${lines.join('\n')}\n`;
}
