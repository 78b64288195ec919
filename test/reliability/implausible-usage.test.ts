// Item 6 of issue 30, a row of the fault matrix: an upstream that reports token counts no answer can have
// (`prompt_tokens: 1e12`, `completion_tokens: 1e300`, a fraction, a negative count). They were recorded `ok`, fed
// tokenmeter_tokens_total and the cost, and `trace export` then asked for two billion block ids (out of memory).
// Now such a usage is not read (src/measure/reported-usage.ts, the one gate every protocol's usage passes): the
// client still gets the upstream's bytes, the record is `ok` with `implausibleUsage` saying why and the counts of
// an answer without usage, and the counters and cost never see the reported numbers. The same in bench's records,
// and trace export leaves such a record of an older gateway out, counted.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import type { RequestRecord as BenchRecord } from '../../loadgen/record.js';
import type { RequestRecord } from '../../src/gateway/records/record.js';
import { MAX_REPORTED_TOKENS } from '../../src/measure/reported-usage.js';
import { startGateway, type TestGateway } from '../gateway/helpers/gateway.js';
import { chatChunk, startUpstream, type TestUpstream } from '../gateway/helpers/upstream.js';
import { runCli } from '../helpers/run-cli.js';
import { closeAndAccount } from './accounting.js';

const MODEL = 'test-model';
/** What each request's upstream reports, chosen by the client's `x-usage-case` header (passed through). */
const USAGES: Readonly<Record<string, Record<string, unknown>>> = {
  huge: { prompt_tokens: 1e12, completion_tokens: 1e300, total_tokens: 1e300 },
  fraction: { prompt_tokens: 12, completion_tokens: 2.5, total_tokens: 14.5 },
  negative: { prompt_tokens: -4, completion_tokens: 2, total_tokens: -2 },
  cached: { prompt_tokens: 12, completion_tokens: 2, prompt_tokens_details: { cached_tokens: 1e15 } },
  plausible: { prompt_tokens: 12, completion_tokens: 2, total_tokens: 14 },
};

let upstream: TestUpstream;
const dir = mkdtempSync(join(tmpdir(), 'tokenmeter-usage-'));

function answer(usage: Record<string, unknown>, stream: boolean): string {
  if (stream)
    return `${chatChunk({ content: 'Hello there' })}${chatChunk({}, 'stop').replace('}\n\n', `,"usage":${JSON.stringify(usage)}}\n\n`)}data: [DONE]\n\n`;
  return JSON.stringify({
    id: 'chatcmpl-test',
    object: 'chat.completion',
    model: MODEL,
    choices: [{ index: 0, message: { role: 'assistant', content: 'Hello there' }, finish_reason: 'stop' }],
    usage,
  });
}

before(async () => {
  upstream = await startUpstream((req, res, body) => {
    if (req.method !== 'POST') return void res.writeHead(404).end();
    const usage = USAGES[String(req.headers['x-usage-case'] ?? 'huge')] ?? {};
    const stream = (JSON.parse(body.toString('utf8')) as { stream?: boolean }).stream === true;
    res.writeHead(200, { 'content-type': stream ? 'text/event-stream' : 'application/json' });
    res.end(answer(usage, stream));
  });
});
after(async () => {
  await upstream.close();
  rmSync(dir, { recursive: true, force: true });
});

async function metricSum(gateway: TestGateway, name: string): Promise<number> {
  const page = await (await request(`${gateway.url}/metrics`)).body.text();
  return page
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

test('item 6, usage counts no answer can have, streamed and not: the client gets the bytes, the record says implausible, no counter or cost takes them', async () => {
  const gateway = await startGateway({
    upstreams: [
      {
        name: 'up',
        baseUrl: `${upstream.url}/v1`,
        keyless: true,
        default: true,
        prices: { [MODEL]: { inputPerMillion: 1, outputPerMillion: 2, currency: 'USD' } },
      },
    ],
  });
  const cases = Object.keys(USAGES).flatMap((name) => [
    { name, stream: true },
    { name, stream: false },
  ]);
  for (const { name, stream } of cases) {
    const response = await request(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-usage-case': name },
      body: JSON.stringify({ model: MODEL, stream, messages: [{ role: 'user', content: 'Hi' }] }),
    });
    const text = await response.body.text();
    assert.equal(response.statusCode, 200);
    // Not the gateway's to change: the client gets the usage as the upstream wrote it.
    assert.ok(text.includes(JSON.stringify(USAGES[name]).slice(1, -1)), `${name}: ${text}`);
  }
  const tokens = await metricSum(gateway, 'tokenmeter_tokens_total');
  const cost = await metricSum(gateway, 'tokenmeter_cost_total');
  const records = await closeAndAccount(gateway, cases.length);
  for (const record of records) {
    const name = cases[records.indexOf(record)]?.name;
    assert.equal(record.outcome, 'ok', `${name}: ${record.error}`);
    for (const count of [record.promptTokens, record.outputTokens, record.cachedPromptTokens])
      assert.ok(count === null || count <= MAX_REPORTED_TOKENS, `${name}: ${JSON.stringify(record)}`);
  }
  const flagged = (r: RequestRecord): string => r.implausibleUsage ?? '';
  const byCase = (name: string) => records.filter((_, i) => cases[i]?.name === name);
  for (const r of byCase('huge'))
    assert.match(flagged(r), /usage\.prompt_tokens is 1000000000000 \(past 10,000,000 tokens/);
  for (const r of byCase('fraction'))
    assert.match(flagged(r), /usage\.completion_tokens is 2\.5 \(not a whole number\)/);
  for (const r of byCase('negative')) assert.match(flagged(r), /usage\.prompt_tokens is -4 \(negative\)/);
  for (const r of byCase('cached'))
    assert.match(flagged(r), /usage\.prompt_tokens_details\.cached_tokens is 1000000000000000/);
  for (const r of byCase('plausible')) {
    assert.equal(r.implausibleUsage, undefined);
    assert.equal(r.outputTokens, 2);
    assert.equal(r.outputTokensSource, 'usage');
  }
  // Ten answers of a few tokens each, estimated or reported: nothing near the reported numbers.
  assert.ok(tokens > 0 && tokens < 1000, `tokenmeter_tokens_total summed ${tokens}`);
  assert.ok(cost > 0 && cost < 0.01, `tokenmeter_cost_total summed ${cost}`);
});

test('item 6, bench against the same upstream: its record says implausible, its output counted by the tokenizer', async () => {
  const run = await runCli(
    [
      'bench',
      '--backend',
      'openai-chat',
      '--base-url',
      upstream.url,
      '--model',
      MODEL,
      '--num-prompts',
      '2',
      '--save-result',
      '--result-dir',
      dir,
      '--result-filename',
      'run.json',
    ],
    process.env,
    undefined,
    60_000,
  );
  assert.equal(run.code, 0, run.stderr);
  const records = readFileSync(join(dir, 'run.records.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as BenchRecord);
  assert.equal(records.length, 2);
  for (const record of records) {
    assert.equal(record.outcome, 'ok');
    assert.match(record.implausibleUsage ?? '', /usage\.prompt_tokens is 1000000000000/);
    assert.equal(record.outputTokensSource, 'tokenizer');
    assert.ok(record.outputTokens < 10, `outputTokens ${record.outputTokens}`);
  }
  assert.match(run.stdout, /Total generated tokens:\s+\d{1,2}\s/);
});

test('item 6, trace export of an older gateway records file holding prompt_tokens 1e12: that record left out and counted', async () => {
  const line = (promptTokens: number, second: number): string =>
    `${JSON.stringify({ role: 'primary', startedAt: `2026-01-01T00:00:0${second}.000Z`, promptTokens, outputTokens: 5 })}\n`;
  const records = join(dir, 'old-gateway.jsonl');
  writeFileSync(records, line(1e12, 1) + line(40, 2));
  const out = join(dir, 'trace.jsonl');
  const run = await runCli(['trace', 'export', records, '-o', out], process.env, undefined, 60_000);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /1 requests, .* 1 with implausible token counts/);
  assert.equal(readFileSync(out, 'utf8').trim().split('\n').length, 1);
});
