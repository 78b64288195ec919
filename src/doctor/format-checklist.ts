import type { CheckResult, CheckStatus } from './check.js';

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
