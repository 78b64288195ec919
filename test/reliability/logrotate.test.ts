// The logrotate snippets of docs/configuration.md ("Rotating the records file"), run by the real `logrotate`
// (Debian's package; .ci/run installs it) against a real `tokenmeter serve`, with only the paths and the signal
// command replaced: copytruncate, and rename + SIGHUP. Each asserts what the clients received, both files (every
// line parses, no NUL byte) and one record per request. Without the binary the rows skip and say why; the same
// steps done by hand are the rows of records-operations.test.ts.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  chatStreamSteps,
  playScript,
  startUpstream,
  type TestUpstream,
} from '../gateway/helpers/upstream.js';
import { codeBlocks } from '../helpers/doc-code-blocks.js';
import { sendStreams, strictRecordsIn, until, wholeLinesIn } from '../helpers/records-files.js';
import { startCli } from '../helpers/run-cli.js';
import { assertOneRecordPerRequest } from './accounting.js';

const DOC = fileURLToPath(new URL('../../../docs/configuration.md', import.meta.url));
const DOC_FOLDER = '/var/log/tokenmeter';

let upstream: TestUpstream;
let dir: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tokenmeter-logrotate-'));
  upstream = await startUpstream((_req, res) => playScript(res, chatStreamSteps(3, 1, 1, false), []));
});
after(async () => {
  await upstream.close();
  await rm(dir, { recursive: true, force: true });
});

function logrotateMissing(): string | null {
  try {
    execFileSync('logrotate', ['--version'], { stdio: 'ignore' });
    return null;
  } catch (error) {
    return `logrotate is not installed (apt-get install logrotate): ${(error as Error).message}`;
  }
}

/** The documented snippet whose first line mentions `kind`, as written in the doc. */
async function snippet(kind: string): Promise<string> {
  const section = (await readFile(DOC, 'utf8')).split('**Rotating the records file.**')[1] ?? '';
  const blocks = codeBlocks(section, '');
  const block = blocks.find((b) => (b.split('\n')[0] ?? '').includes(kind));
  assert.ok(block !== undefined, `docs/configuration.md has a logrotate snippet for ${kind}`);
  return block;
}

/** Serves with records in `folder`, sends 20, runs logrotate with `config`, sends 20 more, stops. */
async function rotateUnderTraffic(
  name: string,
  kind: string,
  adapt: (config: string, pid: number) => string,
): Promise<void> {
  const folder = join(dir, name);
  execFileSync('mkdir', ['-m', '0755', folder]);
  const file = join(folder, 'records.jsonl');
  const configFile = join(dir, `${name}.json`);
  await writeFile(
    configFile,
    JSON.stringify({
      port: 0,
      upstreams: [{ name: 'u', baseUrl: upstream.url, keyless: true }],
      records: { file },
    }),
  );
  const { child, match } = await startCli(['serve', '--config', configFile], /listening on (http:\S+)\/v1/);
  try {
    const url = match[1] ?? '';
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const first = await sendStreams(url, 'first', 20);
    await until('20 records in the file', async () => (await wholeLinesIn(file)) === 20);
    const config = adapt((await snippet(kind)).replaceAll(DOC_FOLDER, folder), child.pid ?? 0);
    const logrotateConf = join(dir, `${name}.logrotate.conf`);
    await writeFile(logrotateConf, config, { mode: 0o644 });
    execFileSync('logrotate', ['--force', '--state', join(dir, `${name}.state`), logrotateConf]);
    await until(`${file} to exist after the rotation`, () =>
      stat(file).then(
        () => true,
        () => false,
      ),
    );
    const second = await sendStreams(url, 'second', 20);
    await until('20 records in the new file', async () => (await wholeLinesIn(file)) === 20);
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
    const rotated = await strictRecordsIn(`${file}.1`);
    const current = await strictRecordsIn(file);
    assert.deepEqual(rotated.map((r) => r.requestId).sort(), [...first].sort());
    assert.deepEqual(current.map((r) => r.requestId).sort(), [...second].sort());
    assertOneRecordPerRequest([...rotated, ...current], 40);
  } finally {
    child.kill('SIGKILL');
  }
}

test('the documented copytruncate snippet, run by logrotate under traffic', async (t) => {
  const missing = logrotateMissing();
  if (missing !== null) {
    t.skip(missing);
    return;
  }
  await rotateUnderTraffic('copytruncate', 'copytruncate', (config) => config);
});

test('the documented rename + SIGHUP snippet, run by logrotate under traffic', async (t) => {
  const missing = logrotateMissing();
  if (missing !== null) {
    t.skip(missing);
    return;
  }
  await rotateUnderTraffic('rename', 'SIGHUP', (config, pid) => {
    const signal = /^\s*systemctl kill .*$/m;
    assert.match(config, signal, 'the snippet signals the gateway in postrotate');
    return config.replace(signal, `        kill -HUP ${pid}`);
  });
});
