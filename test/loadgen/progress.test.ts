// Live progress: the rolling window's figures (bounded, close to exact, forgetting what is older than the window),
// the two renderings as pure functions of the run's state, a terminal redraw, and a real `tokenmeter bench`
// whose stderr is a pipe printing its periodic plain lines.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ProgressDisplay } from '../../loadgen/bench/progress.js';
import { etaMs, type ProgressState, plainLine, ttyLine } from '../../loadgen/bench/progress-line.js';
import { RollingWindow } from '../../loadgen/bench/rolling-window.js';
import { percentile } from '../../loadgen/metrics/numpy-stats.js';
import type { RequestRecord } from '../../loadgen/record.js';
import { SeededRandom } from '../../src/shared/random.js';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { bench, cleanEnv, scratchDir } from './helpers/bench-cli.js';
import { exactTiming } from './helpers/bench-fixtures.js';

test('rolling window: TTFT p50/p99 within half a bucket (2.5%) of exact, rates over the span', () => {
  const window = new RollingWindow(10_000);
  const random = new SeededRandom('window');
  const ttfts: number[] = [];
  // 5,000 requests over the window's 10 s, log-normal TTFTs around 200 ms.
  for (let i = 0; i < 5000; i++) {
    const ttft = 200 * Math.exp(0.8 * random.normal());
    ttfts.push(ttft);
    window.add(i * 2, { ok: i % 50 !== 0, ttftMs: ttft, outputTokens: 100 });
  }
  const snap = window.snapshot(9_999);
  assert.equal(snap.done, 5000);
  assert.equal(snap.failed, 100);
  assert.equal(snap.spanMs, 9_999);
  assert.ok(Math.abs(snap.outputTokensPerS / ((5000 * 100) / 9.999) - 1) < 1e-9);
  for (const [q, got] of [
    [50, snap.ttftP50Ms],
    [99, snap.ttftP99Ms],
  ] as const) {
    const exact = percentile(ttfts, q);
    assert.ok(got !== null && Math.abs(got / exact - 1) <= 0.03, `p${q}: ${got} vs ${exact}`);
  }
});

test('rolling window: forgets what is older than the window, and an empty window has no TTFT', () => {
  const window = new RollingWindow(10_000);
  for (let ms = 0; ms < 3_600_000; ms += 10)
    window.add(ms, { ok: true, ttftMs: ms < 3_590_000 ? 5 : 500, outputTokens: 1 });
  // An hour of requests (360,000) went through ten one-second slots; only the last 10 s count.
  const snap = window.snapshot(3_600_000);
  assert.equal(snap.done, 900, 'the nine whole seconds before the current one');
  assert.ok(snap.ttftP50Ms !== null && Math.abs(snap.ttftP50Ms / 500 - 1) < 0.03, `${snap.ttftP50Ms}`);
  const later = window.snapshot(3_600_000 + 20_000);
  assert.equal(later.done, 0);
  assert.equal(later.ttftP50Ms, null);
  assert.equal(later.requestsPerS, 0);
});

const STATE: ProgressState = {
  total: 400,
  done: 120,
  failed: 3,
  inFlight: 32,
  elapsedMs: 12_345,
  windowMs: 10_000,
  window: {
    spanMs: 10_000,
    done: 80,
    failed: 2,
    requestsPerS: 8,
    outputTokensPerS: 1234.4,
    ttftP50Ms: 45.2,
    ttftP99Ms: 1830,
  },
  requestMs: null,
};

test('the terminal line: bar, counts, ETA at the window rate, live figures; cut to the width', () => {
  assert.equal(etaMs(STATE), 35_000);
  const line = ttyLine(STATE);
  assert.equal(
    line,
    '[#########.....................] 120/400 done, 3 failed, 32 in flight, ETA 0:35 | last 10 s: TTFT p50 45 ms p99 1.83 s, 1234 output tok/s, 97.5% ok',
  );
  assert.equal(ttyLine(STATE, 60), line.slice(0, 59));
  assert.equal(ttyLine(STATE, 200), line);
});

test('the plain line: no control characters, same figures, "-" for what is not known yet', () => {
  assert.equal(
    plainLine(STATE),
    'progress: 120/400 done (3 failed), 32 in flight, 12.3 s, ETA 0:35; last 10 s: TTFT p50 45 ms p99 1.83 s, 1234 output tok/s, 97.5% ok',
  );
  const start: ProgressState = {
    ...STATE,
    done: 0,
    failed: 0,
    window: {
      ...STATE.window,
      done: 0,
      failed: 0,
      requestsPerS: 0,
      outputTokensPerS: 0,
      ttftP50Ms: null,
      ttftP99Ms: null,
    },
  };
  assert.match(plainLine(start), /ETA -; last 10 s: TTFT p50 - p99 -, 0 output tok\/s, - ok$/);
  assert.match(plainLine({ ...STATE, window: { ...STATE.window, requestsPerS: 0.01 } }), /ETA 7:46:40;/);
});

test('on a terminal the line is redrawn in place, and ends with a newline on stop', async () => {
  const writes: string[] = [];
  let redrawn: () => void = () => {};
  const firstDraw = new Promise<void>((resolve) => (redrawn = resolve));
  const stream = {
    isTTY: true,
    columns: 300,
    write(text: string) {
      writes.push(text);
      redrawn();
      return true;
    },
  };
  const display = new ProgressDisplay(2, stream, true);
  display.onSent();
  display.onRecord(record(12));
  await firstDraw;
  display.stop();
  const first = writes[0] ?? '';
  assert.ok(first.startsWith('\r') && first.endsWith('\u001b[K'), JSON.stringify(first));
  assert.match(first.slice(1), /^\[#{15}\.{15}\] 1\/2 done, 0 failed, 0 in flight, ETA .* TTFT p50 12 ms /);
  assert.equal(writes.at(-1), '\n');
});

function record(ttftMs: number): RequestRecord {
  return { outcome: 'ok', ttftMs, outputTokens: 10 } as RequestRecord;
}

let sim: RunningSimulator;
before(async () => {
  sim = await startSimulator({ seed: 5, timing: exactTiming(10, 2) });
});
after(() => sim.close());

test('tokenmeter bench with stderr not a terminal: a plain line at each tenth, with the live figures', async () => {
  const dir = scratchDir();
  const run = await bench(
    [
      '--base-url',
      sim.url,
      '--num-prompts',
      '40',
      '--request-rate',
      '40',
      '--random-output-len',
      '20',
      '--dataset-name',
      'random',
      '--result-dir',
      dir,
    ],
    cleanEnv(),
  );
  assert.equal(run.code, 0, run.stderr);
  const lines = run.stderr.split('\n').filter((l) => l.startsWith('progress: '));
  assert.equal(lines.length, 10, run.stderr);
  for (const line of lines) {
    assert.match(
      line,
      /^progress: \d+\/40 done \(0 failed\), \d+ in flight, \d+\.\d s, ETA (\d+:\d\d|-); last 10 s: TTFT p50 [\d.]+ m?s p99 [\d.]+ m?s, \d+ output tok\/s, 100\.0% ok$/,
    );
  }
  assert.match(lines.at(-1) ?? '', /^progress: 40\/40 done .* ETA 0:00;/);
  assert.ok(
    !run.stderr.includes('\r') && !run.stderr.includes('\u001b'),
    'no redraws or escape codes in a log',
  );
});
