#!/usr/bin/env node
// Runs the compiled test suite: every dist/test/**/*.test.js, one file at a time.
//
// Why not `node --test dist/test/`: Node 20 expands a directory argument itself, but Node 22+ reads every
// positional argument as a glob and then as a file, so a directory fails with MODULE_NOT_FOUND there. Globs do not
// exist on Node 20. Listing the files here works on every supported line, and it leaves helper modules under
// dist/test (servers, fixtures) out of the run instead of loading them as empty test files.
//
// Arguments, when given, replace the list: `npm test -- dist/test/gateway/path-matrix.test.js`.
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

const run = spawnSync(
  process.execPath,
  ['--enable-source-maps', '--test', '--test-concurrency=1', ...files],
  { stdio: 'inherit' },
);
process.exit(run.status ?? 1);
