// `tokenmeter sweep` at its default settings against a simulator whose capacity is known: 8 seats, each answer
// 20 tokens at 20 ms to the first and 4 ms per token after (no jitter, no batching cost), so a seat turns over
// every 96 ms and the server completes at most 8 / 0.096 = 83.3 req/s. The automatic sweep must bracket that
// within one level; a sweep of rates all below it must say "no knee". Levels are short in wall time (the
// default length is 25 latencies of ~0.1 s) yet hold 80-250 requests each, which is what makes them steady.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { runCli } from '../helpers/run-cli.js';
import { cleanEnv, scratchDir } from './helpers/bench-cli.js';

const SEATS = 8;
const SEAT_MS = 20 + 19 * 4;
const CAPACITY_RPS = (SEATS * 1000) / SEAT_MS;

interface Summary {
  levels: Array<{ offered_rate: number; status: string; steady_requests: number; warmup_requests: number }>;
  knee: {
    finding: string;
    sentence: string;
    offered_rate: number | null;
    last_good_rps: number | null;
    first_bad_rps: number | null;
  };
  probes: { synchronous?: { medianLatencyMs: number }; throughput?: { rps: number } };
}

let sim: RunningSimulator;

before(async () => {
  sim = await startSimulator({
    seed: 7,
    timing: { ttftMs: 20, itlMs: 4, jitter: 0, prefillMsPerToken: 0, maxNumSeqs: SEATS, batchSlowdown: 0 },
  });
});
after(() => sim.close());

async function sweep(dir: string, extra: string[]) {
  const run = await runCli(
    [
      'sweep',
      '--base-url',
      sim.url,
      '--dataset-name',
      'random',
      '--random-input-len',
      '16',
      '--random-output-len',
      '20',
      '--ignore-eos',
      '--result-dir',
      dir,
      '--disable-tqdm',
      ...extra,
    ],
    cleanEnv(),
  );
  assert.equal(run.code, 0, run.stderr);
  const summary = JSON.parse(readFileSync(join(dir, 'sweep-summary.json'), 'utf8')) as Summary;
  return { run, summary };
}

test('an automatic sweep brackets the known capacity within one level, and the page marks that knee', async () => {
  const dir = scratchDir();
  const { run, summary } = await sweep(dir, ['--html', join(dir, 'sweep.html')]);
  assert.match(run.stderr, /synchronous probe: 10 requests one at a time/);
  assert.match(run.stderr, /throughput probe: 100 requests at once/);
  const rates = summary.levels.map((l) => l.offered_rate);
  assert.equal(rates.length, 5);
  const spacing = (rates[4] as number) - (rates[3] as number);
  const { knee } = summary;
  assert.equal(knee.finding, 'knee', knee.sentence);
  assert.ok(knee.last_good_rps !== null && knee.first_bad_rps !== null);
  assert.ok(
    knee.last_good_rps - spacing <= CAPACITY_RPS && CAPACITY_RPS <= knee.first_bad_rps + spacing,
    `knee ${knee.last_good_rps}-${knee.first_bad_rps} vs capacity ${CAPACITY_RPS.toFixed(1)} (levels ${rates})`,
  );
  // The evidence is in the sentence: achieved vs offered with their spread, and what broke.
  assert.match(
    knee.sentence,
    /^The knee lies between .* it kept up, achieved [\d.]+ req\/s \(bins [\d.]+-[\d.]+\) of [\d.]+ req\/s \(bins [\d.]+-[\d.]+\) offered: \d+% ± \d+%; at [\d.]+ req\/s (achieved .*, under 90%|only)/,
  );
  assert.ok(run.stdout.includes(knee.sentence));
  // Warm-up is left out of every level's figures and counted apart.
  for (const level of summary.levels) assert.ok(level.warmup_requests > 0 && level.steady_requests > 0);
  assert.equal(readdirSync(dir).filter((f) => f.endsWith('.records.jsonl')).length, 7);
  // The page states the same sentence and marks the same levels.
  const html = readFileSync(join(dir, 'sweep.html'), 'utf8');
  assert.equal(knee.offered_rate, knee.last_good_rps);
  assert.ok(html.includes(knee.sentence.replace(/'/g, '&#39;')), 'the sentence, as printed');
  assert.ok((html.match(/class="marker-label"[^>]*>knee</g) ?? []).length >= 4);
  assert.ok((html.match(/class="marker-label"[^>]*>fell behind</g) ?? []).length >= 4);
});

test('a sweep of rates all below the capacity says there is no knee, and the page marks none', async () => {
  const dir = scratchDir();
  const rates = [0.25, 0.45, 0.65].map((f) => Math.round(f * CAPACITY_RPS));
  // Near-even arrivals (burstiness 100): a Poisson level this short offers its rate only within about +-10% per
  // bin (measured: 94% +- 9% achieved at 65% of capacity), too close to the 90% line for the rule to call it kept up.
  const { run, summary } = await sweep(dir, [
    '--rates',
    rates.join(','),
    '--burstiness',
    '100',
    '--html',
    join(dir, 'sweep.html'),
  ]);
  assert.equal(summary.knee.finding, 'no-knee', summary.knee.sentence);
  assert.match(run.stdout, /No knee: the server kept up with every rate up to [\d.]+ req\/s, achieved /);
  assert.equal(summary.knee.offered_rate, null);
  assert.doesNotMatch(readFileSync(join(dir, 'sweep.html'), 'utf8'), /class="marker-label"/);
});
