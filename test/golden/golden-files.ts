// Reads, compares and (with UPDATE_GOLDEN=1) rewrites the committed golden files under test/golden/expected/.
// The test runs from dist/test/golden/, the files live in the source tree, so an update lands where git sees it.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const EXPECTED_DIR = fileURLToPath(new URL('../../../test/golden/expected/', import.meta.url));

export const UPDATING = process.env['UPDATE_GOLDEN'] === '1';

/** Lines shown around the first difference. */
const CONTEXT_LINES = 3;
/** Changed lines shown in the first hunk, so one message shows the whole of a small change. */
const MORE_LINES = 12;

/** Compares `actual` with the golden file `name`, or writes it when updating. */
export function matchGolden(name: string, actual: string): void {
  const path = join(EXPECTED_DIR, name);
  if (UPDATING) {
    mkdirSync(EXPECTED_DIR, { recursive: true });
    writeFileSync(path, actual);
    return;
  }
  assert.ok(
    existsSync(path),
    `no golden file test/golden/expected/${name}: run UPDATE_GOLDEN=1 node scripts/run-tests.js dist/test/golden/cli-golden.test.js`,
  );
  const expected = readFileSync(path, 'utf8');
  if (expected === actual) return;
  assert.fail(`test/golden/expected/${name} differs:\n${lineDiff(expected, actual)}`);
}

/**
 * A unified-style excerpt of the first change: the longest common subsequence of the two line lists places each
 * inserted or removed line (a line added to a report shows as one '+', not as every later line shifted), then the
 * first hunk is printed with a few lines of context, '-' expected and '+' actual.
 */
export function lineDiff(expected: string, actual: string): string {
  const want = expected.split('\n');
  const got = actual.split('\n');
  // common[i][j]: length of the longest common subsequence of want[i..] and got[j..].
  const common = Array.from({ length: want.length + 1 }, () => new Array<number>(got.length + 1).fill(0));
  for (let i = want.length - 1; i >= 0; i--) {
    for (let j = got.length - 1; j >= 0; j--) {
      const row = common[i] as number[];
      row[j] =
        want[i] === got[j]
          ? ((common[i + 1] as number[])[j + 1] as number) + 1
          : Math.max((common[i + 1] as number[])[j] as number, row[j + 1] as number);
    }
  }
  const lines: Array<{ mark: ' ' | '-' | '+'; text: string; line: number }> = [];
  let i = 0;
  let j = 0;
  while (i < want.length || j < got.length) {
    if (i < want.length && j < got.length && want[i] === got[j]) {
      lines.push({ mark: ' ', text: want[i] as string, line: i + 1 });
      i++;
      j++;
    } else if (
      i < want.length &&
      (j >= got.length ||
        ((common[i + 1] as number[])[j] as number) >= ((common[i] as number[])[j + 1] as number))
    ) {
      lines.push({ mark: '-', text: want[i] as string, line: i + 1 });
      i++;
    } else {
      lines.push({ mark: '+', text: got[j] as string, line: i + 1 });
      j++;
    }
  }
  const first = lines.findIndex((entry) => entry.mark !== ' ');
  if (first < 0) return '(no line differs)';
  const out = [`@@ expected line ${lines[first]?.line} @@`];
  let changed = 0;
  let sinceChange = 0;
  for (let k = Math.max(0, first - CONTEXT_LINES); k < lines.length; k++) {
    const entry = lines[k] as (typeof lines)[number];
    if (entry.mark === ' ') {
      if (k > first && ++sinceChange > CONTEXT_LINES) break;
    } else {
      sinceChange = 0;
      if (++changed > MORE_LINES) {
        out.push('...');
        break;
      }
    }
    out.push(`${entry.mark} ${entry.text}`);
  }
  const rest =
    lines.slice(first).filter((entry) => entry.mark !== ' ').length - Math.min(changed, MORE_LINES);
  if (rest > 0) out.push(`(${rest} more changed lines after this hunk)`);
  return out.join('\n');
}
