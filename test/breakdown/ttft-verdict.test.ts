// The TTFT verdict on real runs, bench straight to the simulator with bench's own span receiver taking the
// simulator's llm_request spans: a few long prompts among short ones at low load are named as the long prompts
// (with their correlation and lengths); an overloaded simulator (one seat, a burst) is named as the server queue.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { breakdownFeature } from '../../loadgen/breakdown/breakdown-feature.js';
import { partOf } from '../../loadgen/feature.js';
import { DEFAULT_VERDICT_THRESHOLDS, verdicts } from '../../loadgen/report/verdicts.js';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { TRACES_PATH } from '../../src/tracing/receiver/span-receiver.js';
import { scratchDir } from '../loadgen/helpers/bench-cli.js';
import { benchInProcess, EXPORT_ENV, freePort } from './helpers.js';

const sims: RunningSimulator[] = [];
after(() => Promise.all(sims.map((s) => s.close())));

async function tracedSim(port: number, timing: Record<string, number>): Promise<RunningSimulator> {
  const sim = await startSimulator(
    { otlpTracesEndpoint: `http://127.0.0.1:${port}${TRACES_PATH}`, timing: { jitter: 0, ...timing } },
    EXPORT_ENV,
  );
  sims.push(sim);
  return sim;
}

test('long prompts among short ones at low load: the verdict names prompt length, not load', async () => {
  const port = await freePort();
  // 1 ms of prefill per prompt token: a 600-token prompt takes about 600 ms to its first token, a short one 10.
  const sim = await tracedSim(port, { ttftMs: 5, prefillMsPerToken: 1, itlMs: 1, maxNumSeqs: 32 });
  const dataset = join(scratchDir(), 'prompts.jsonl');
  const lines = Array.from({ length: 20 }, (_, i) =>
    JSON.stringify({ prompt: i % 10 === 0 ? 'word '.repeat(600) : 'hello there', output_tokens: 4 }),
  );
  writeFileSync(dataset, `${lines.join('\n')}\n`);
  const result = await benchInProcess({
    'base-url': `${sim.url}/v1`,
    'dataset-name': 'custom',
    'dataset-path': dataset,
    'num-prompts': 20,
    'request-rate': 20,
    'span-receiver-port': port,
  });
  assert.equal(result.records.filter((r) => r.outcome === 'ok').length, 20);
  const ttft = result.verdicts.find((v) => v.kind === 'ttft-spread');
  assert.ok(ttft, JSON.stringify(result.verdicts));
  assert.match(
    ttft.message,
    /The slow TTFTs are the long prompts: TTFT rises with prompt length \(r = (0\.9\d|1\.00)\)/,
  );
  // A busy host can make a short prompt slow too: the range may start short, it always reaches the long ones.
  assert.match(
    ttft.message,
    /the slow requests' prompts \d+-\d{3} tokens \(mean \d+\), the others' mean \d tokens/,
  );
  assert.match(ttft.message, /prefill dominates/);
  assert.doesNotMatch(ttft.message, /server queue dominates|Cause unknown/);
});

test('an overloaded simulator: the verdict names the server queue with its numbers', async () => {
  const port = await freePort();
  // One seat, 20 requests of about 30 ms each at once: the last waits about 570 ms for its seat.
  const sim = await tracedSim(port, { ttftMs: 10, prefillMsPerToken: 0, itlMs: 5, maxNumSeqs: 1 });
  const result = await benchInProcess({
    'base-url': `${sim.url}/v1`,
    'dataset-name': 'random',
    'random-input-len': 16,
    'random-output-len': 4,
    'num-prompts': 20,
    'span-receiver-port': port,
  });
  assert.equal(partOf(result.parts, breakdownFeature)?.summary.slowest?.dominant, 'serverQueue');
  const ttft = result.verdicts.find((v) => v.kind === 'ttft-spread');
  assert.ok(ttft, JSON.stringify(result.verdicts));
  assert.match(ttft.message, /server queue dominates \(1 of 1\): median \d+\.\d\d ms of their median TTFT/);
  assert.doesNotMatch(ttft.message, /long prompts|Cause unknown/);
});

test('without segment data or a prompt-length pattern, the verdict says cause unknown and what is missing', async () => {
  // The same overload without a span receiver: the tail is there, nothing measured says why. One seat makes the
  // TTFTs a ramp (p99 about 2x the median), so the spread threshold is lowered to 1.5x to ask for the verdict.
  const sim = await tracedSim(await freePort(), {
    ttftMs: 10,
    prefillMsPerToken: 0,
    itlMs: 5,
    maxNumSeqs: 1,
  });
  const result = await benchInProcess({
    'base-url': `${sim.url}/v1`,
    'dataset-name': 'random',
    'random-input-len': 16,
    'random-output-len': 4,
    'num-prompts': 20,
  });
  const list = verdicts(result.records, result.extra, {
    ...DEFAULT_VERDICT_THRESHOLDS,
    ttftP99OverMedian: 1.5,
  });
  const ttft = list.find((v) => v.kind === 'ttft-spread');
  assert.ok(ttft, JSON.stringify(list));
  assert.match(ttft.message, /Not the prompt length/);
  assert.match(
    ttft.message,
    /Cause unknown: no segment data; missing the gateway's side .*--gateway-records/,
  );
  assert.match(ttft.message, /--otlp-traces-endpoint/);
});
