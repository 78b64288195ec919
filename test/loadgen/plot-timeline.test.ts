// vLLM's --plot-timeline and --timeline-itl-thresholds: bench writes the run's HTML report beside the result file
// as <result>.timeline.html, its timeline coloured by the thresholds given, which the result keeps for later
// reports; thresholds that are not two ascending numbers are one line and exit 2.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { bench, cleanEnv, scratchDir } from './helpers/bench-cli.js';

let sim: RunningSimulator;

before(async () => {
  sim = await startSimulator({
    seed: 9,
    timing: { ttftMs: 20, itlMs: 4, jitter: 0, prefillMsPerToken: 0, maxNumSeqs: 8, batchSlowdown: 0 },
  });
});
after(() => sim.close());

const RUN = (dir: string): string[] => [
  '--base-url',
  sim.url,
  '--dataset-name',
  'random',
  '--random-input-len',
  '16',
  '--random-output-len',
  '12',
  '--ignore-eos',
  '--num-prompts',
  '24',
  '--request-rate',
  '50',
  '--disable-tqdm',
  '--no-server-metrics',
  '--no-gpu-metrics',
  '--save-result',
  '--result-dir',
  dir,
  '--result-filename',
  'run.json',
];

test('--plot-timeline writes <result>.timeline.html with one bar per request, coloured by --timeline-itl-thresholds', async () => {
  const dir = scratchDir();
  const run = await bench([...RUN(dir), '--plot-timeline', '--timeline-itl-thresholds', '2,5'], cleanEnv());
  assert.equal(run.code, 0, run.stdout + run.stderr);
  const path = join(dir, 'run.timeline.html');
  assert.match(
    run.stdout + run.stderr,
    new RegExp(`timeline: ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
  );
  const html = readFileSync(path, 'utf8');
  assert.equal(html.match(/<g class="timeline-request"/g)?.length, 24);
  // Every request's TTFT, and its gaps as at least one segment each (the colouring: test/report/html-report.test.ts).
  assert.equal(html.match(/class="mark ttft"/g)?.length, 24);
  assert.ok((html.match(/class="mark gap band-[012]"/g)?.length ?? 0) >= 24);
  assert.match(html, /ITL &lt; 2 ms/);
  assert.match(html, /Gaps coloured by --timeline-itl-thresholds 2,5 \(ms\)/);
  const json = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as Record<
    string,
    Record<string, unknown>
  >;
  assert.deepEqual(json['tokenmeter']?.['timeline_itl_thresholds_ms'], [2, 5]);
  assert.doesNotMatch(run.stdout, /plot-timeline.*changes nothing|vLLM would write a timeline/);
});

test('without --plot-timeline no timeline file is written', async () => {
  const dir = scratchDir();
  const run = await bench(RUN(dir), cleanEnv());
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.equal(existsSync(join(dir, 'run.timeline.html')), false);
});

test('thresholds that are not two ascending numbers of milliseconds: one line, exit 2, nothing sent', async () => {
  for (const bad of ['25', '50,25', 'a,b', '1,2,3']) {
    const dir = scratchDir();
    const run = await bench([...RUN(dir), '--timeline-itl-thresholds', bad], cleanEnv());
    assert.equal(run.code, 2, `${bad}: ${run.stdout}${run.stderr}`);
    assert.equal(
      run.stderr.trim().split('\n').at(-1),
      `tokenmeter bench: --timeline-itl-thresholds takes two numbers of milliseconds, the lower first, as 25,50 (got '${bad}'); see 'tokenmeter bench --help'`,
    );
  }
});
