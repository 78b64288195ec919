// `tokenmeter bench` against the simulator in speculative mode: vLLM's "Speculative Decoding" section in the
// summary and its spec_decode_* keys in the result, read from the server-metrics scrape (baseline before the first
// request, last sample after the drain) and equal to the simulator's ground truth of the run's requests. Against
// the simulator without speculative decoding, neither appears.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { type RequestTruth, type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { runCli } from '../helpers/run-cli.js';

const folder = mkdtempSync(join(tmpdir(), 'tokenmeter-spec-decode-'));
const N = 3;
const TIMING = { ttftMs: 4, itlMs: 1, prefillMsPerToken: 0, jitter: 0 };
const PROMPTS = 8;
const PREFIX = 'sd-';

async function bench(sim: RunningSimulator, resultFile: string) {
  const res = await runCli([
    'bench',
    '--base-url',
    sim.url,
    '--model',
    'tokenmeter/sim-7b',
    '--dataset-name',
    'random',
    '--random-input-len',
    '16',
    '--random-output-len',
    '40',
    '--num-prompts',
    String(PROMPTS),
    '--request-id-prefix',
    PREFIX,
    '--save-result',
    '--result-dir',
    folder,
    '--result-filename',
    resultFile,
    '--no-records',
    '--disable-tqdm',
  ]);
  assert.equal(res.code, 0, res.stderr + res.stdout);
  const json = JSON.parse(readFileSync(join(folder, resultFile), 'utf8')) as Record<string, unknown>;
  return { stdout: res.stdout, json };
}

/** Python's "{:<40} {:<10}" row. */
const row = (label: string, value: string): string => `${label.padEnd(40)} ${value.padEnd(10)}`;

test("speculative decoding: vLLM's section and keys, equal to the simulator's truth", async () => {
  const sim = await startSimulator({
    seed: 5,
    timing: { ...TIMING, speculativeTokens: N, specAcceptanceRate: 0.65 },
  });
  try {
    const { stdout, json } = await bench(sim, 'spec.json');
    const steps = Array.from(
      { length: PROMPTS },
      (_, i) => sim.truth(`${PREFIX}${i}`) as RequestTruth,
    ).flatMap((truth) => truth.acceptedDrafts);
    const drafts = steps.length;
    const accepted = steps.reduce((a, b) => a + b, 0);
    const perPosition = Array.from({ length: N }, (_, i) => steps.filter((a) => a > i).length / drafts);
    assert.ok(drafts > PROMPTS * 5, `drafts: ${drafts}`);

    assert.equal(json['spec_decode_num_drafts'], drafts);
    assert.equal(json['spec_decode_draft_tokens'], N * drafts);
    assert.equal(json['spec_decode_accepted_tokens'], accepted);
    assert.equal(json['spec_decode_acceptance_rate'], (accepted / (N * drafts)) * 100);
    assert.equal(json['spec_decode_acceptance_length'], 1 + accepted / drafts);
    assert.deepEqual(json['spec_decode_per_position_acceptance_rates'], perPosition);

    const section = [
      `${'-'.repeat(15)}Speculative Decoding${'-'.repeat(15)}`,
      row('Acceptance rate (%):', ((accepted / (N * drafts)) * 100).toFixed(2)),
      row('Acceptance length:', (1 + accepted / drafts).toFixed(2)),
      row('Drafts:', String(drafts)),
      row('Draft tokens:', String(N * drafts)),
      row('Accepted tokens:', String(accepted)),
      'Per-position acceptance (%):',
      ...perPosition.map((rate, i) => row(`  Position ${i}:`, (rate * 100).toFixed(2))),
      '='.repeat(50),
    ].join('\n');
    assert.ok(stdout.includes(section), `the section, before the closing rule:\n${section}\nin:\n${stdout}`);
  } finally {
    await sim.close();
  }
});

test('without speculative decoding: no section, no spec_decode_* keys', async () => {
  const sim = await startSimulator({ timing: TIMING });
  try {
    const { stdout, json } = await bench(sim, 'plain.json');
    assert.doesNotMatch(stdout, /Speculative Decoding/);
    assert.deepEqual(
      Object.keys(json).filter((k) => k.startsWith('spec_decode')),
      [],
    );
  } finally {
    await sim.close();
  }
});
