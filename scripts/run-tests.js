#!/usr/bin/env node
// Runs the compiled test suite: every dist/test/**/*.test.js, one file at a time.
//
// Why not `node --test dist/test/`: Node 20 expands a directory argument itself, but Node 22+ reads every
// positional argument as a glob and then as a file, so a directory fails with MODULE_NOT_FOUND there. Globs do not
// exist on Node 20. Listing the files here works on every supported line, and it leaves helper modules under
// dist/test (servers, fixtures) out of the run instead of loading them as empty test files.
//
// Arguments, when given, replace the list: `npm test -- dist/test/gateway/path-matrix.test.js`.
//
// Every test has a deadline, so a test that waits forever fails with its name instead of stopping CI at its job
// limit. `--test-timeout` bounds each test on Node 24, but each test *file* on Node 20 (nodejs/node#57656, changed
// in 24 by #57672), so the value is sized for a whole file, from the suite run on the 2-core machine the team
// shares: quiet, the slowest file took 36 s (test/loadgen/sweep-knee) and the slowest test 27 s; under a load
// average of 12-17, test/cli/bad-input (one of its tests alone 68 s, 12 s when quiet) and
// test/doctor/command-fixes took over 120 s. 300 s leaves that loaded run room to grow by half again, and a hung
// file still fails in minutes. A test's own `timeout` option still applies inside it.
// TEST_TIMEOUT_MS overrides the value (a slower machine; the test of this deadline itself).
//
// `--test-force-exit` ends a file's process once its tests are done, even if something it started still holds the
// event loop (a child process, an interval). Without it, on Node 24, whose timeout bounds tests and not files, one
// such handle kept a finished file, and so the whole run, waiting until CI's job limit (70 minutes, once).
// As a last bound the whole run is killed after SUITE_TIMEOUT_MS (default 40 minutes; the suite takes about 12 on
// the 2-core machine), so CI always gets to report.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const suiteRoot = join('dist', 'test');

function testFilesUnder(directory) {
  return readdirSync(directory, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.test.js'))
    .map((entry) => join(entry.parentPath ?? entry.path, entry.name))
    .sort();
}

const requested = process.argv.slice(2);
const files = requested.length > 0 ? requested : testFilesUnder(suiteRoot);
if (files.length === 0) {
  console.error(`no *.test.js files under ${suiteRoot}: run \`npm run build\` first`);
  process.exit(1);
}

const PER_TEST_TIMEOUT_MS = Number(process.env.TEST_TIMEOUT_MS ?? 300_000);
const SUITE_TIMEOUT_MS = Number(process.env.SUITE_TIMEOUT_MS ?? 40 * 60_000);

const run = spawnSync(
  process.execPath,
  [
    '--enable-source-maps',
    '--test',
    '--test-concurrency=1',
    '--test-force-exit',
    `--test-timeout=${PER_TEST_TIMEOUT_MS}`,
    ...files,
  ],
  { stdio: 'inherit', timeout: SUITE_TIMEOUT_MS, killSignal: 'SIGKILL' },
);
if (run.error?.code === 'ETIMEDOUT') {
  console.error(`the test run was killed after ${SUITE_TIMEOUT_MS / 1000} s (SUITE_TIMEOUT_MS)`);
}
process.exit(run.status ?? 1);
