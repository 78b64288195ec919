// The doctor's fixing workflow without the CLI (src/doctor/command-line/fix-settings.ts): a bench config and a
// benchmark command read, checked against a real chat-only simulator, corrected, and the config written beside the
// old file only when asked and only when something changed; the files the settings name checked by the load
// generator's own checks when they are handed in.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { benchFileProblems } from '../../loadgen/bench/input-checks.js';
import { BENCH_FLAG_KINDS } from '../../src/cli/doctor-fixes.js';
import { type FixSettingsOptions, fixSettings } from '../../src/doctor/command-line/fix-settings.js';
import { readConfig } from '../../src/shared/option-schema.js';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';

const MODEL = 'tokenmeter/sim-7b';
const KEY = 'sk-fix-settings-test';
let sim: RunningSimulator;
let dir: string;

before(async () => {
  sim = await startSimulator({ timing: { ttftMs: 1, itlMs: 1, jitter: 0 }, chatOnly: true, apiKey: KEY });
  dir = await mkdtemp(join(tmpdir(), 'tokenmeter-fix-settings-'));
});
after(async () => {
  await sim.close();
  await rm(dir, { recursive: true, force: true });
});

function options(apply: boolean, checkFiles = true): FixSettingsOptions {
  return {
    baseUrl: undefined,
    timeoutMs: 3000,
    // bench's completions backends are the doctor's `openai`.
    doctorBackend: (name) => (name === 'openai-chat' ? 'openai-chat' : 'openai'),
    apply,
    env: { SIM_KEY: KEY },
    flagKinds: BENCH_FLAG_KINDS,
    readConfig,
    ...(checkFiles ? { fileProblems: benchFileProblems } : {}),
  };
}

test('a config: corrected and written beside the old file, which stays as it was', async () => {
  const path = join(dir, 'bench_config.json');
  const original = `${JSON.stringify({ backend: 'vllm', base_url: `${sim.url}/v1`, api_key_env: 'SIM_KEY', model: MODEL }, null, 2)}\n`;
  await writeFile(path, original);

  const dry = await fixSettings({ kind: 'config', path }, options(false));
  assert.equal(dry.what, 'config');
  assert.ok(dry.ok, JSON.stringify(dry.plan.after));
  assert.ok(
    dry.plan.before.some((r) => r.status === 'fail'),
    'the completions backend fails on a chat-only server',
  );
  assert.ok(
    dry.reasons.some((why) => /^backend vllm -> openai-chat/.test(why)),
    dry.reasons.join('\n'),
  );
  assert.equal(dry.written, undefined, 'nothing written without apply');
  assert.equal((JSON.parse(dry.corrected) as { backend: string }).backend, 'openai-chat');

  const applied = await fixSettings({ kind: 'config', path }, options(true));
  assert.equal(applied.written, join(dir, 'bench_config.fixed.json'));
  assert.equal(await readFile(applied.written, 'utf8'), `${applied.corrected}\n`);
  assert.equal(await readFile(path, 'utf8'), original, 'the old file is untouched');
  const again = await fixSettings({ kind: 'config', path }, options(true));
  assert.equal(again.written, join(dir, 'bench_config.fixed-2.json'), 'never over a file');
});

test("a config naming a dataset that is not there: not ok, in the run's words; unchecked when no checks are handed in", async () => {
  const path = join(dir, 'missing_dataset.json');
  const missing = join(dir, 'no-such-dataset.json');
  await writeFile(
    path,
    JSON.stringify({
      backend: 'openai-chat',
      endpoint: '/v1/chat/completions',
      base_url: sim.url,
      api_key_env: 'SIM_KEY',
      model: MODEL,
      dataset_name: 'sharegpt',
      dataset_path: missing,
    }),
  );
  const checked = await fixSettings({ kind: 'config', path }, options(true));
  assert.equal(checked.ok, false);
  const dataset = checked.plan.after.find((r) => r.id === 'dataset-file');
  assert.equal(dataset?.status, 'fail');
  assert.ok(dataset?.detail.includes(missing), dataset?.detail);
  assert.equal(checked.written, undefined, 'nothing to change, so nothing written');

  const unchecked = await fixSettings({ kind: 'config', path }, options(false, false));
  assert.ok(unchecked.ok);
  assert.equal(
    unchecked.plan.after.find((r) => r.id === 'dataset-file'),
    undefined,
  );
});

test('a command: the corrected command line, each change with its reason', async () => {
  const line = `vllm bench serve --backend openai --base-url ${sim.url} --model ${MODEL} --api-key-env SIM_KEY`;
  const fixed = await fixSettings({ kind: 'command', text: line }, options(false));
  assert.equal(fixed.what, 'command');
  assert.ok(fixed.ok, JSON.stringify(fixed.plan.after));
  assert.match(fixed.corrected, /--backend openai-chat/);
  assert.match(fixed.corrected, /--endpoint \/v1\/chat\/completions/);
  assert.ok(fixed.reasons.length > 0);
  assert.equal(fixed.written, undefined);
});
