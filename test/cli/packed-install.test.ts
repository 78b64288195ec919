// The install the README documents for a packed tarball: `npm pack`, then `npm install --global` of the .tgz, here
// into a temporary prefix, and `tokenmeter` from that prefix's bin/ run in another folder. The tarball must carry
// the compiled code (a tarball install runs no `prepare`, and typescript, a devDependency, is not installed) and
// the bundled sample; its dependencies come from the npm cache or, the first time, the registry: when neither
// answers, the test skips and says why.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
/** npm's codes for a registry it could not reach (offline, DNS, a proxy refusing). */
const UNREACHABLE = /\b(ENOTCACHED|ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH)\b/;

function run(command: string, args: string[], cwd: string) {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: 240_000 });
  return { code: result.status, out: `${result.stdout ?? ''}${result.stderr ?? ''}` };
}

test('the packed tarball installs into a prefix and tokenmeter runs from another folder', {
  timeout: 300_000,
}, (t) => {
  const work = mkdtempSync(join(tmpdir(), 'tokenmeter-install-'));
  // dist/ is what the suite runs, built already: packing without scripts ships it as it is.
  const packed = run(npm, ['pack', '--ignore-scripts', '--pack-destination', work], repoRoot);
  assert.equal(packed.code, 0, packed.out);
  const tarball = readdirSync(work).find((name) => /^tokenmeter-.*\.tgz$/.test(name));
  assert.ok(tarball !== undefined, packed.out);
  const listed = run('tar', ['tzf', join(work, tarball)], work);
  assert.match(listed.out, /^package\/dist\/src\/cli\/main\.js$/m);
  assert.match(listed.out, /^package\/loadgen\/data\/sharegpt-sample\.json$/m);
  assert.doesNotMatch(listed.out, /^package\/dist\/test\//m, 'the tests are not shipped');

  const prefix = join(work, 'prefix');
  const installed = run(
    npm,
    [
      'install',
      '--global',
      '--prefix',
      prefix,
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      join(work, tarball),
    ],
    work,
  );
  if (installed.code !== 0 && UNREACHABLE.test(installed.out)) {
    t.skip(
      `npm could not fetch the dependencies (no cache, no registry): ${UNREACHABLE.exec(installed.out)?.[1]}`,
    );
    return;
  }
  assert.equal(installed.code, 0, installed.out);
  const bin = join(prefix, process.platform === 'win32' ? 'tokenmeter.cmd' : join('bin', 'tokenmeter'));
  const elsewhere = mkdtempSync(join(tmpdir(), 'tokenmeter-elsewhere-'));
  const help = run(bin, ['--help'], elsewhere);
  assert.equal(help.code, 0, help.out);
  assert.match(help.out, /^Usage: tokenmeter <command>/m);
  const simHelp = run(bin, ['sim', '--help'], elsewhere);
  assert.equal(simHelp.code, 0, simHelp.out);
  assert.match(simHelp.out, /^tokenmeter sim: /m);
});
