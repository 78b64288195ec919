// "Where TTFT goes" says only what the run knows (issue 23, item 9): a plain run (straight to the server, no
// gateway records, no server spans) prints one line saying how to get the split, never rows that read only
// "unknown" nor an "unattributed" row that is the whole latency; a run with server spans keeps every segment,
// the unknown ones included, so the split is seen whole. vLLM's block is untouched either way.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { loadgenSummaryFor } from '../../loadgen/bench/bench-report.js';
import { runBench } from '../../loadgen/bench/run-bench.js';
import { BREAKDOWN_UNKNOWN_LINE } from '../../loadgen/breakdown/breakdown-feature.js';
import { SEGMENT_NAMES, segmentLabel } from '../../loadgen/breakdown/request-breakdown.js';
import { benchSettingsFrom } from '../../src/cli/bench-settings.js';
import { DEFAULT_MODEL_NAME } from '../../src/sim/config.js';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { TRACES_PATH } from '../../src/tracing/receiver/span-receiver.js';
import { EXPORT_ENV, freePort } from './helpers.js';

const sims: RunningSimulator[] = [];
after(() => Promise.all(sims.map((s) => s.close())));

async function report(options: Record<string, string | number | boolean>): Promise<string> {
  const settings = benchSettingsFrom(
    {
      'no-records': true,
      'disable-tqdm': true,
      'dataset-name': 'random',
      'random-input-len': 16,
      'random-output-len': 4,
      'num-prompts': 10,
      'request-rate': 50,
      ...options,
    },
    [],
    EXPORT_ENV,
    'plain-section',
  );
  const result = await runBench({
    settings,
    model: DEFAULT_MODEL_NAME,
    recordsPath: null,
    signal: new AbortController().signal,
    progressStream: { write: () => true, isTTY: false },
  });
  assert.equal(result.records.filter((r) => r.outcome === 'ok').length, 10);
  return loadgenSummaryFor(result, settings);
}

/** A row whose every figure is "unknown": a label, then nothing but the word. */
const ONLY_UNKNOWN = /^\S.*?\s+unknown\s*$/m;

test('a plain run: no row that only says unknown, one line on how to get the split', async () => {
  const sim = await startSimulator({ seed: 9, timing: { ttftMs: 5, itlMs: 1, jitter: 0 } });
  sims.push(sim);
  const text = await report({ 'base-url': sim.url });
  assert.doesNotMatch(text, ONLY_UNKNOWN, text);
  assert.doesNotMatch(text, /unattributed/, text);
  assert.ok(text.includes(`${BREAKDOWN_UNKNOWN_LINE}\n`), text);
  assert.match(text, /^============ Serving Benchmark Result ============\nSuccessful requests: +10 +\n/);
});

test('a run with the server spans keeps every segment, unknown ones as such', async () => {
  const port = await freePort();
  const sim = await startSimulator(
    {
      otlpTracesEndpoint: `http://127.0.0.1:${port}${TRACES_PATH}`,
      timing: { ttftMs: 5, itlMs: 1, jitter: 0 },
    },
    EXPORT_ENV,
  );
  sims.push(sim);
  const text = await report({ 'base-url': sim.url, 'span-receiver-port': port });
  assert.match(text, /-+ Where TTFT goes -+\n/, text);
  for (const name of SEGMENT_NAMES)
    assert.match(
      text,
      new RegExp(`^${segmentLabel(name).replace(/[+<>~]/g, '\\$&')} +(unknown|-?\\d)`, 'm'),
      name,
    );
  // No gateway in between: its segments are unknown, and said so rather than dropped.
  assert.match(text, /^gateway +unknown$/m, text);
  assert.doesNotMatch(text, new RegExp(BREAKDOWN_UNKNOWN_LINE.slice(0, 30)));
});
