// Real traffic becomes a repeatable benchmark: requests pass through a gateway that records them (with
// --record-bodies, and without), then `tokenmeter bench --dataset-name records` replays the records file against
// an upstream that keeps what it receives: the clients' own bodies (streaming turned on, --model applied) at the
// recorded pace, or synthetic prompts of the recorded lengths when no body was kept.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { startGateway } from '../gateway/helpers/gateway.js';
import { chatChunk, startUpstream, type TestUpstream } from '../gateway/helpers/upstream.js';
import { runCli } from '../helpers/run-cli.js';

const GAP_MS = 300;
let upstream: TestUpstream;

before(async () => {
  upstream = await startUpstream((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(
      `${chatChunk({ role: 'assistant', content: '' })}${chatChunk({ content: 'one' })}${chatChunk({ content: ' two' })}` +
        `${chatChunk({}, 'stop')}data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":7,"completion_tokens":2,"total_tokens":9}}\n\n` +
        'data: [DONE]\n\n',
    );
  });
});
after(() => upstream.close());

const originals = [0, 1, 2].map((i) => ({
  model: 'client-model',
  messages: [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: `Question number ${i}: what is TTFT?` },
  ],
  temperature: 0.3,
  max_tokens: 2,
}));

/** Sends the originals through a gateway GAP_MS apart and returns its records file. */
async function recordTraffic(bodies: boolean): Promise<string> {
  const gateway = await startGateway({
    upstreams: [{ name: 'u', baseUrl: upstream.url, keyless: true }],
    records: { bodies },
  });
  try {
    for (const [i, body] of originals.entries()) {
      if (i > 0) await new Promise((resolve) => setTimeout(resolve, GAP_MS));
      const res = await request(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      await res.body.text();
    }
    const records = await gateway.recordsAfter(originals.length);
    const file = join(mkdtempSync(join(tmpdir(), 'tokenmeter-replay-')), 'gateway.jsonl');
    writeFileSync(file, `${records.map((r) => JSON.stringify(r)).join('\n')}\n`);
    return file;
  } finally {
    await gateway.close();
  }
}

async function replay(file: string) {
  const before = upstream.requests.length;
  const res = await runCli([
    'bench',
    '--base-url',
    upstream.url,
    '--model',
    'replay-model',
    '--dataset-name',
    'records',
    '--dataset-path',
    file,
    '--no-records',
    '--disable-tqdm',
  ]);
  assert.equal(res.code, 0, res.stderr);
  // API requests only: bench also looks for the target's /metrics (server metrics).
  return { output: res.stderr, received: upstream.requests.slice(before).filter((r) => r.method === 'POST') };
}

test('recorded bodies are re-sent as the clients sent them, streaming on, at the recorded pace', async () => {
  const { output, received } = await replay(await recordTraffic(true));
  assert.match(output, /3 with the client's own request body, 0 as synthetic text/);
  assert.equal(received.length, 3);
  const bodies = received.map((r) => JSON.parse(r.body.toString('utf8')) as Record<string, unknown>);
  bodies.forEach((body, i) => {
    const original = originals[i] as Record<string, unknown>;
    assert.deepEqual(body['messages'], original['messages'], 'the conversation as the client sent it');
    assert.equal(body['temperature'], 0.3);
    assert.equal(body['max_tokens'], 2);
    assert.equal(body['model'], 'replay-model', '--model applies');
    assert.equal(body['stream'], true);
    assert.deepEqual(body['stream_options'], { include_usage: true });
  });
  // The recorded spacing (GAP_MS plus the time each request took) is kept: never less than GAP_MS.
  const arrivals = received.map((r) => r.atMs);
  for (let i = 1; i < arrivals.length; i++) {
    const gap = (arrivals[i] as number) - (arrivals[i - 1] as number);
    assert.ok(gap >= GAP_MS - 5, `replayed gap ${gap.toFixed(1)} ms keeps the recorded ${GAP_MS} ms pace`);
  }
});

test('without --record-bodies the replay sends synthetic prompts of the recorded lengths, and says so', async () => {
  const { output, received } = await replay(await recordTraffic(false));
  assert.match(output, /0 with the client's own request body, 3 as synthetic text/);
  assert.match(output, /run the gateway with --record-bodies/);
  assert.equal(received.length, 3);
  for (const r of received) {
    const body = JSON.parse(r.body.toString('utf8')) as { messages: Array<{ content: string }> };
    assert.doesNotMatch(JSON.stringify(body.messages), /Question number/);
  }
});
