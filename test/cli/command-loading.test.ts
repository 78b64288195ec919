// A command loads only its own modules: `serve` and `sim` (and their --help) do not load the load generator, and
// the top-level help loads no command at all. Importing every command up front cost each about 200 ms of CPU and
// 20-28 MB at start (src/cli/commands.ts). Which modules load is read from Node's own ESM loader log
// (NODE_DEBUG=esm: a "Storing <url>" line per module).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const CLI = fileURLToPath(new URL('../../../bin/tokenmeter.js', import.meta.url));

/** The project's modules (under dist/) that `tokenmeter ...args` loads, as paths below dist/. */
async function modulesLoaded(args: string[]): Promise<string[]> {
  const { stderr } = await promisify(execFile)(process.execPath, [CLI, ...args], {
    env: { ...process.env, NODE_DEBUG: 'esm' },
    timeout: 20_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  const paths = [...stderr.matchAll(/Storing file:\/\/\S*?\/dist\/(\S+?\.js)/g)].map((m) => m[1] as string);
  return [...new Set(paths)];
}

for (const command of ['serve', 'sim']) {
  test(`${command} --help loads no module of the load generator`, async () => {
    const loaded = await modulesLoaded([command, '--help']);
    assert.ok(
      loaded.includes(`src/cli/${command}-command.js`),
      `the log lists the command's module: ${loaded}`,
    );
    assert.deepEqual(
      loaded.filter((path) => path.startsWith('loadgen/')),
      [],
    );
  });
}

test('the top-level help loads no command module', async () => {
  const loaded = await modulesLoaded(['--help']);
  assert.ok(loaded.includes('src/cli/main.js'), `the log lists main.js: ${loaded}`);
  assert.deepEqual(
    loaded.filter((path) => path.endsWith('-command.js')),
    [],
  );
});
