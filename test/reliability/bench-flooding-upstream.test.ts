// Item 5 of issue 30, a row of the fault matrix for the load generator: an upstream that floods one answer with
// content and never ends it. bench once kept all of that answer's text, died at V8's string limit after taking
// over a gigabyte (undici swallowed the throw, the run's promise never settled: Node's exit 13), printed nothing
// and left an empty result file. Now the text kept per request is bounded (src/measure/kept-text.ts): the flooded
// request is cut there and recorded `truncated` with its reason, and the run ends as any other does.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { RequestRecord } from '../../loadgen/record.js';
import { EXIT_RUN_FAILED } from '../../src/cli/command.js';
import { startUpstream } from '../gateway/helpers/upstream.js';
import { maxRssMbOf, reportMaxRssOptions } from '../helpers/max-rss.js';
import { runCli } from '../helpers/run-cli.js';

const PROMPTS = 4;
/** The flood stops by itself after this long, whether or not bench stopped reading (the test's own bound). */
const FLOOD_FOR_MS = 60_000;
/** The bound: bench's peak memory with a flooded request among its own. */
const MAX_RSS_MB = 300;

const event = (payload: unknown): string => `data: ${JSON.stringify(payload)}\n\n`;
const FLOOD = Buffer.from(
  event({ choices: [{ index: 0, delta: { content: 'x'.repeat(4000) } }] }).repeat(16),
);
const ANSWER =
  event({ choices: [{ index: 0, delta: { content: 'Hello there' } }] }) +
  event({
    choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
    usage: { prompt_tokens: 5, completion_tokens: 2 },
  }) +
  'data: [DONE]\n\n';

test('item 5, an upstream that floods one answer without end: that request truncated with its reason, the others recorded, the result saved, bench under 300 MB', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tokenmeter-flood-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  let posts = 0;
  let floodedBytes = 0;
  const upstream = await startUpstream(
    (req, res) => {
      if (req.method !== 'POST') {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (posts++ > 0) {
        res.end(ANSWER);
        return;
      }
      const stopAt = performance.now() + FLOOD_FOR_MS;
      const pump = (): void => {
        while (!res.destroyed && performance.now() < stopAt) {
          floodedBytes += FLOOD.length;
          if (!res.write(FLOOD)) return;
        }
        if (!res.destroyed) res.end();
      };
      res.on('drain', pump);
      pump();
    },
    undefined,
    { keepBodies: false },
  );
  t.after(() => upstream.close());

  const run = await runCli(
    [
      'bench',
      '--backend',
      'openai-chat',
      '--base-url',
      upstream.url,
      '--model',
      'm',
      '--num-prompts',
      String(PROMPTS),
      '--save-result',
      '--result-dir',
      dir,
    ],
    { ...process.env, NODE_OPTIONS: reportMaxRssOptions() },
  );

  // 3 of 4 succeeded: under the default success floor, which is the run's failure, said in a line.
  assert.equal(run.code, EXIT_RUN_FAILED, `exit ${run.code}; stderr: ${run.stderr.slice(-600)}`);
  assert.match(run.stdout, /Successful requests:\s+3\b/);
  assert.match(run.stdout, /Failed requests:\s+1\b/);
  assert.match(run.stdout, /stopped reading: the answer passed 4,194,304 characters of generated text/);
  assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace');
  const peakMb = maxRssMbOf(run.stderr);
  assert.ok(peakMb !== undefined && peakMb < MAX_RSS_MB, `bench's peak RSS ${peakMb} MB`);
  assert.ok(floodedBytes > 4 * 1024 * 1024, `the upstream flooded ${floodedBytes} bytes`);

  const files = readdirSync(dir);
  const resultFile = files.find((f) => f.endsWith('.json'));
  const recordsFile = files.find((f) => f.endsWith('.records.jsonl'));
  assert.ok(resultFile !== undefined && recordsFile !== undefined, `files saved: ${files.join(', ')}`);
  const result = JSON.parse(readFileSync(join(dir, resultFile), 'utf8')) as Record<string, unknown>;
  assert.equal(result['completed'], 3);
  const records = readFileSync(join(dir, recordsFile), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as RequestRecord);
  // Accounting: one record per request the upstream received.
  assert.equal(posts, PROMPTS);
  assert.equal(records.length, PROMPTS);
  const outcomes = records.map((r) => r.outcome).sort();
  assert.deepEqual(outcomes, ['ok', 'ok', 'ok', 'truncated']);
  const flooded = records.find((r) => r.outcome === 'truncated') as RequestRecord;
  assert.match(flooded.error ?? '', /^stopped reading: the answer passed 4,194,304 characters/);
  assert.ok(flooded.generatedTextLength <= 4 * 1024 * 1024);
});
