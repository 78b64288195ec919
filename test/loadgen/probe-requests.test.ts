// --probe-request-rate against the simulator, checked with its ground truth: one-token probes, one at a time, each
// sent at least 1/R s after the previous one ended, past the client's --max-concurrency (a probe overlaps a
// request of a run capped at 1), from the run's start to its drain, none of them in the run's figures; and vLLM's
// "Probe Requests" section and probe_* keys describe them (their latencies at or above the server's own).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { type RequestTruth, startSimulator } from '../../src/sim/index.js';
import { runCli } from '../helpers/run-cli.js';

const folder = mkdtempSync(join(tmpdir(), 'tokenmeter-probes-'));
const PROMPTS = 10;
const RATE = 10;
const PREFIX = 'pr-';

test("probes: one at a time at the rate, past --max-concurrency, apart from the run's figures, as vLLM reports them", async () => {
  const sim = await startSimulator({ timing: { ttftMs: 20, itlMs: 5, prefillMsPerToken: 0, jitter: 0 } });
  try {
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
      '24',
      '--num-prompts',
      String(PROMPTS),
      '--max-concurrency',
      '1',
      '--probe-request-rate',
      String(RATE),
      '--request-id-prefix',
      PREFIX,
      '--save-result',
      '--result-dir',
      folder,
      '--result-filename',
      'probes.json',
      '--no-records',
      '--disable-tqdm',
    ]);
    assert.equal(res.code, 0, res.stderr + res.stdout);
    const json = JSON.parse(readFileSync(join(folder, 'probes.json'), 'utf8')) as Record<string, number>;
    const figure = (key: string): number => {
      const value = json[key];
      assert.equal(typeof value, 'number', key);
      return value as number;
    };
    const runs = Array.from({ length: PROMPTS }, (_, i) => sim.truth(`${PREFIX}${i}`) as RequestTruth);
    const probes: RequestTruth[] = [];
    for (let n = 0; sim.truth(`${PREFIX}probe-${n}`) !== undefined; n++)
      probes.push(sim.truth(`${PREFIX}probe-${n}`) as RequestTruth);

    assert.equal(json['completed'], PROMPTS, 'the run counts its own requests only');
    assert.ok(probes.length >= 3, `probes: ${probes.length}`);
    assert.equal(json['probe_completed'], probes.length);
    assert.equal(json['probe_failed'], 0);
    for (const probe of probes) {
      assert.equal(probe.completionTokens, 1);
      assert.equal(probe.finishReason, 'length');
    }
    // One at a time: each sent after the previous one ended and the interval passed.
    for (let n = 1; n < probes.length; n++) {
      const gap =
        (probes[n] as RequestTruth).receivedAtMs - ((probes[n - 1] as RequestTruth).endedAtMs as number);
      assert.ok(gap >= 1000 / RATE - 1, `probe ${n} came ${gap.toFixed(2)} ms after the previous one ended`);
    }
    // Past the client's cap of 1: some probe was served while a request of the run was.
    const overlaps = (a: RequestTruth, b: RequestTruth): boolean =>
      a.receivedAtMs < (b.endedAtMs as number) && b.receivedAtMs < (a.endedAtMs as number);
    assert.ok(probes.some((p) => runs.some((r) => overlaps(p, r))));
    // From the start to the drain: the loop stops once the client has the last answer, so at most the probe whose
    // pause ended while that answer was on its way starts after the server finished it.
    const firstSent = Math.min(...runs.map((r) => r.receivedAtMs));
    const lastEnded = Math.max(...runs.map((r) => r.endedAtMs as number));
    assert.ok((probes[0] as RequestTruth).receivedAtMs - firstSent < 1000 / RATE);
    assert.ok(probes.filter((p) => p.receivedAtMs > lastEnded).length <= 1);
    // The client's latency includes the server's (the truth's) and the way there and back.
    const serverMs = probes.map((p) => (p.endedAtMs as number) - p.receivedAtMs).sort((a, b) => a - b);
    assert.ok(figure('probe_max_e2el_ms') >= (serverMs.at(-1) as number));
    assert.ok(figure('probe_median_e2el_ms') >= (serverMs[0] as number));
    assert.ok(figure('probe_median_e2el_ms') <= figure('probe_p99_e2el_ms'));
    assert.ok(figure('probe_p99_e2el_ms') <= figure('probe_max_e2el_ms'));

    const row = (label: string, value: string): string => `${label.padEnd(40)} ${value.padEnd(10)}`;
    const section = [
      `${'-'.repeat(18)}Probe Requests${'-'.repeat(18)}`,
      row('Probe requests completed:', String(probes.length)),
      row('Probe requests failed:', '0'),
      row('Median probe E2EL (ms):', figure('probe_median_e2el_ms').toFixed(2)),
      row('P99 probe E2EL (ms):', figure('probe_p99_e2el_ms').toFixed(2)),
      row('Max probe E2EL (ms):', figure('probe_max_e2el_ms').toFixed(2)),
      `${'-'.repeat(15)}Time to First Token${'-'.repeat(16)}`,
    ].join('\n');
    assert.ok(
      res.stdout.includes(section),
      `after the throughputs, before the latency sections:\n${res.stdout}`,
    );
    const keys = Object.keys(json);
    assert.deepEqual(keys.slice(keys.indexOf('rtfx') + 1, keys.indexOf('rtfx') + 6), [
      'probe_completed',
      'probe_failed',
      'probe_median_e2el_ms',
      'probe_p99_e2el_ms',
      'probe_max_e2el_ms',
    ]);
  } finally {
    await sim.close();
  }
});
