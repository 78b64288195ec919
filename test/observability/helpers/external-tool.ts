// Finds an external binary (promtool, prometheus) on PATH. Missing locally: the test says why and is skipped;
// missing in CI (process.env.CI set): the test fails, because CI installs them (.ci/run) and a silent skip
// there would hide that the real-Prometheus checks never ran.
import assert from 'node:assert/strict';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { TestContext } from 'node:test';

export function findOnPath(name: string): string | undefined {
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

/** The binary's path, or undefined after skipping the test (locally) / failing it (in CI). */
export function requireTool(t: TestContext, name: string): string | undefined {
  const found = findOnPath(name);
  if (found !== undefined) return found;
  const why = `${name} is not on PATH (Debian: apt-get install --no-install-recommends prometheus)`;
  if (process.env['CI']) assert.fail(`${why}; CI must install it (.ci/run)`);
  process.stdout.write(`# skipped: ${why}\n`);
  t.skip(why);
  return undefined;
}
