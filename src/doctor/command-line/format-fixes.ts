// The doctor's answer for a benchmark's settings: the checklist, then the corrected settings with one line per
// change saying why, then how the checks went with the changes made.
import type { CheckResult, CheckStatus } from '../check.js';

function tally(results: readonly CheckResult[]): string {
  const count = (s: CheckStatus) => results.filter((r) => r.status === s).length;
  return `${count('pass')} ok, ${count('warn')} warnings, ${count('fail')} failing, ${count('skip')} skipped`;
}

export function formatFixes(
  what: 'command' | 'config',
  corrected: string,
  /** One reason per change, in the form's own terms. */
  reasons: readonly string[],
  after: readonly CheckResult[],
  notes: readonly string[] = [],
): string {
  if (reasons.length === 0) return `\nthe ${what} needs no change the doctor can make\n`;
  const lines = [
    '',
    `corrected ${what} (${reasons.length} change${reasons.length === 1 ? '' : 's'}):`,
    '',
    corrected,
    '',
    'why:',
    ...reasons.map((r) => `  - ${r}`),
    ...notes.map((n) => `  - ${n}`),
    '',
    `checked again with these changes: ${tally(after)}`,
  ];
  return `${lines.join('\n')}\n`;
}
