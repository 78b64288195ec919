// Traces as workloads: a Mooncake-style trace and a BurstGPT CSV are replayed at their timestamps (scaled by
// --replay-speed), with prompts synthesized so that equal prefix block ids give equal prompt text; and a
// gateway's records file exported with `tokenmeter trace export` is a Mooncake trace that replays with the same
// request count, lengths and spacing. The upstream keeps every body it receives.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { startGateway } from '../gateway/helpers/gateway.js';
import { chatChunk, startUpstream, type TestUpstream, usageChunk } from '../gateway/helpers/upstream.js';
import { runCli } from '../helpers/run-cli.js';

let upstream: TestUpstream;
const folder = mkdtempSync(join(tmpdir(), 'tokenmeter-trace-'));

/** Answers every chat request with as many one-word chunks as it asked for, and usage. */
before(async () => {
  upstream = await startUpstream((req, res, body) => {
    // Only the API is answered: the load generator also looks for the server's /metrics (none here).
    if (req.method !== 'POST') {
      res.writeHead(404).end();
      return;
    }
    const asked = JSON.parse(body.toString()) as { max_tokens?: number; max_completion_tokens?: number };
    const n = asked.max_completion_tokens ?? asked.max_tokens ?? 1;
    const words = (JSON.parse(body.toString()) as { messages: { content: string }[] }).messages
      .map((m) => m.content)
      .join(' ')
      .split(/\s+/).length;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    let text = chatChunk({ role: 'assistant', content: '' });
    for (let i = 0; i < n; i++) text += chatChunk({ content: ' w' });
    res.end(`${text}${chatChunk({}, 'stop')}${usageChunk(words, n)}data: [DONE]\n\n`);
  });
});
after(() => upstream.close());

interface Sent {
  readonly prompt: string;
  readonly maxTokens: number;
}

function promptOf(body: Buffer): Sent {
  const parsed = JSON.parse(body.toString()) as {
    messages: { content: string }[];
    max_tokens?: number;
    max_completion_tokens?: number;
  };
  return {
    prompt: parsed.messages.map((m) => m.content).join('\n'),
    maxTokens: parsed.max_completion_tokens ?? parsed.max_tokens ?? 0,
  };
}

interface ClientRecord {
  readonly intendedOffsetMs: number;
  readonly promptTokens: number;
  readonly outputTokens: number;
  readonly outcome: string;
}

/** Replays `file` as `dataset` against the upstream; returns what the upstream received and the client records. */
async function replay(dataset: string, file: string, extra: string[] = []) {
  const before = upstream.requests.length;
  const records = join(folder, `${dataset}-${Math.random().toString(36).slice(2)}.records.jsonl`);
  const res = await runCli([
    'bench',
    '--base-url',
    upstream.url,
    '--model',
    'm',
    '--dataset-name',
    dataset,
    '--dataset-path',
    file,
    '--records-file',
    records,
    '--disable-tqdm',
    ...extra,
  ]);
  assert.equal(res.code, 0, res.stderr + res.stdout);
  const sent = upstream.requests
    .slice(before)
    .filter((r) => r.method === 'POST')
    .map((r) => promptOf(r.body));
  const client = readFileSync(records, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as ClientRecord);
  return { res, sent, client };
}

test('a Mooncake trace: sent at its timestamps divided by --replay-speed; equal hash ids, equal prompt prefixes', async () => {
  const file = join(folder, 'trace.jsonl');
  writeFileSync(
    file,
    [
      '{"timestamp": 0, "input_length": 40, "output_length": 4, "hash_ids": [10, 11, 12]}',
      '{"timestamp": 600, "input_length": 28, "output_length": 2, "hash_ids": [10, 11]}',
      '{"timestamp": 300, "input_length": 20, "output_length": 3, "hash_ids": [20, 21]}',
      '{"timestamp": 900, "input_length": 16, "output_length": 1}',
      '',
      '{"timestamp": -5, "input_length": 4, "output_length": 1}',
    ].join('\n'),
  );
  const { res, sent, client } = await replay('mooncake', file, [
    '--trace-block-tokens',
    '16',
    '--replay-speed',
    '2',
  ]);
  assert.match(res.stderr, /skipped 1 malformed lines: line 6: 'timestamp' must be a number of milliseconds/);
  // Intended send times: the timestamps in order, relative to the first, halved.
  assert.deepEqual(
    client.map((r) => r.intendedOffsetMs).sort((a, b) => a - b),
    [0, 150, 300, 450],
  );
  assert.ok(client.every((r) => r.outcome === 'ok'));
  const byLength = new Map(sent.map((s) => [s.prompt.split(' ').length, s]));
  const [a, b, c, d] = [40, 28, 20, 16].map((n) => byLength.get(n) as Sent);
  assert.ok(a && b && c && d, `prompts of every length: ${[...byLength.keys()]}`);
  assert.deepEqual(
    [a, b, c, d].map((s) => s.maxTokens),
    [4, 2, 3, 1],
  );
  const words = (s: Sent) => s.prompt.split(' ');
  // Blocks 10 and 11 (32 words) are shared; the rest is not.
  assert.deepEqual(words(b).slice(0, 28), words(a).slice(0, 28));
  assert.notDeepEqual(words(c).slice(0, 16), words(a).slice(0, 16));
  // Past its ids, a request's words are its own: the 16-word line shares nothing with the 20-word one.
  assert.notDeepEqual(words(d), words(c).slice(0, 16));
  // The built-in tokenizer counts one word as one token: the prompt lengths are the trace's.
  assert.deepEqual(
    client.map((r) => r.promptTokens).sort((x, y) => x - y),
    [16, 20, 28, 40],
  );
});

test('a BurstGPT CSV: rows at their seconds, requests of their token counts, failed rows skipped and counted', async () => {
  const file = join(folder, 'burst.csv');
  writeFileSync(
    file,
    'Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n' +
      '5,ChatGPT,12,3,15,Conversation log\n' +
      '5.2,GPT-4,8,0,8,Conversation log\n' +
      '5.4,ChatGPT,6,2,8,API log\n',
  );
  const { res, sent, client } = await replay('burstgpt', file);
  assert.match(res.stderr, /skipped 1 rows with 0 response tokens/);
  assert.deepEqual(
    client.map((r) => r.intendedOffsetMs).sort((a, b) => a - b),
    [0, 400],
  );
  assert.deepEqual(
    sent.map((s): [number, number] => [s.prompt.split(' ').length, s.maxTokens]).sort((x, y) => x[0] - y[0]),
    [
      [6, 2],
      [12, 3],
    ],
  );
});

test('a BurstGPT file without its columns, a trace with nothing to replay: one line, exit 1', async () => {
  const noColumns = join(folder, 'bad.csv');
  writeFileSync(noColumns, 'time,tokens\n1,2\n');
  const csv = await runCli([
    'bench',
    '--base-url',
    upstream.url,
    '--model',
    'm',
    '--dataset-name',
    'burstgpt',
    '--dataset-path',
    noColumns,
  ]);
  assert.equal(csv.code, 1);
  assert.match(csv.stderr, /has no 'timestamp' column/);
  const empty = join(folder, 'empty.jsonl');
  writeFileSync(empty, '{"timestamp": 0}\n');
  const none = await runCli([
    'bench',
    '--base-url',
    upstream.url,
    '--model',
    'm',
    '--dataset-name',
    'mooncake',
    '--dataset-path',
    empty,
  ]);
  assert.equal(none.code, 1);
  assert.match(
    none.stderr,
    /no request of the Mooncake trace to replay \(1 malformed lines: line 1: 'input_length'/,
  );
  assert.doesNotMatch(csv.stderr + none.stderr, /\n\s+at /, 'no stack trace');
});

test('trace export: a records file becomes an anonymised trace that replays with its counts, lengths and spacing', async () => {
  const gateway = await startGateway({
    upstreams: [{ name: 'u', baseUrl: upstream.url, keyless: true }],
    records: { bodies: true },
  });
  const system = 'You answer in one word. '.repeat(8);
  const questions = ['first question about prefill', 'second question about decode', 'a third one'];
  try {
    for (const [i, question] of questions.entries()) {
      if (i > 0) await new Promise((resolve) => setTimeout(resolve, 200));
      const res = await request(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'm',
          stream: true,
          max_tokens: i + 2,
          messages: [
            { role: 'system', content: system },
            { role: 'user', content: question },
          ],
        }),
      });
      await res.body.text();
    }
    const records = await gateway.recordsAfter(questions.length);
    const recordsFile = join(folder, 'gateway.jsonl');
    writeFileSync(recordsFile, `${records.map((r) => JSON.stringify(r)).join('\n')}\n`);
    const traceFile = join(folder, 'exported.jsonl');
    const exported = await runCli(['trace', 'export', recordsFile, '-o', traceFile, '--block-tokens', '16']);
    assert.equal(exported.code, 0, exported.stderr);
    assert.match(exported.stdout, /3 requests, 3 with prefix ids from their bodies/);
    const text = readFileSync(traceFile, 'utf8');
    assert.doesNotMatch(text, /question|answer/, 'no prompt text in the trace');
    const lines = text
      .trim()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as {
            timestamp: number;
            input_length: number;
            output_length: number;
            hash_ids: number[];
          },
      );
    assert.deepEqual(
      lines.map((l) => [l.input_length, l.output_length]),
      records.map((r) => [r.promptTokens, r.outputTokens]),
    );
    // The system prompt (more than two blocks of 16 tokens) is a shared prefix; the questions are not.
    const [one, two] = lines as [(typeof lines)[0], (typeof lines)[0]];
    assert.deepEqual(one.hash_ids.slice(0, 2), two.hash_ids.slice(0, 2));
    assert.notDeepEqual(one.hash_ids.at(-1), two.hash_ids.at(-1));
    // Spacing kept: each timestamp is its record's arrival after the first's (the records' wall clock, in ms).
    const arrivals = records.map((r) => Date.parse(r.startedAt));
    const t0 = arrivals[0] as number;
    assert.deepEqual(
      lines.map((l) => l.timestamp),
      arrivals.map((at) => at - t0),
    );
    assert.ok((lines[1]?.timestamp ?? 0) >= 200, 'sent at least 200 ms apart');

    const again = await replay('mooncake', traceFile, ['--trace-block-tokens', '16']);
    assert.equal(again.client.length, questions.length);
    assert.deepEqual(
      again.client.map((r) => r.outputTokens).sort(),
      lines.map((l) => l.output_length).sort(),
    );
    assert.deepEqual(
      again.client.map((r) => r.promptTokens).sort((x, y) => x - y),
      lines.map((l) => l.input_length).sort((x, y) => x - y),
    );
    const offsets = again.client.map((r) => r.intendedOffsetMs).sort((x, y) => x - y);
    assert.deepEqual(
      offsets,
      lines.map((l) => l.timestamp),
    );
  } finally {
    await gateway.close();
  }
});
