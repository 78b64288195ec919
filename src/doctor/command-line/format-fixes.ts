// The doctor's answer for a benchmark's settings: the checklist, then the corrected settings with one line per
// change saying why, then how the checks went with the changes made.
import type { CheckResult, CheckStatus } from '../check.js';
import type { Change } from './bench-source.js';

function tally(results: readonly CheckResult[]): string {
  const count = (s: CheckStatus) => results.filter((r) => r.status === s).length;
  return `${count('pass')} ok, ${count('warn')} warnings, ${count('fail')} failing, ${count('skip')} skipped`;
}

export function formatFixes(
  what: 'command' | 'config',
  corrected: string,
  changes: readonly Change[],
  after: readonly CheckResult[],
  notes: readonly string[] = [],
): string {
  if (changes.length === 0) return `\nthe ${what} needs no change the doctor can make\n`;
  const lines = [
    '',
    `corrected ${what} (${changes.length} change${changes.length === 1 ? '' : 's'}):`,
    '',
    corrected,
    '',
    'why:',
    ...changes.map((c) => `  - ${c.why}`),
    ...notes.map((n) => `  - ${n}`),
    '',
    `checked again with these changes: ${tally(after)}`,
  ];
  return `${lines.join('\n')}\n`;
}
