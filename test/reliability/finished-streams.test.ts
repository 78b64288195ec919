// The fault matrix, finished streams: clients that stop reading at a stream's final event and close (the `openai`
// package from 7.x stops at `data: [DONE]`, Codex closes after `response.completed`) while the upstream's end of
// body comes 0, 1, 5 or 200 ms later. Each such request is `ok` (the outcome rule, src/measure/stream-outcome.ts:
// a close once the final event reached the client ends a finished answer), and a client that closes before the
// final event is still `client_abort`. Every row: what the client received, the record's outcome, one record per
// request sent (accounting.ts). Before the rule, 10 of 10 streams at 200 ms were `client_abort`.
//
// The installed `openai` package (6.x on Node 20) reads past `[DONE]` to the end of the body, so it cannot show the
// close at the final event: the client here does what 7.x does, with undici: read to the final event, then destroy.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { request } from 'undici';
import { startGateway } from '../gateway/helpers/gateway.js';
import { chatChunk, startUpstream, usageChunk } from '../gateway/helpers/upstream.js';
import { bench, cleanEnv, scratchDir } from '../loadgen/helpers/bench-cli.js';
import { closeAndAccount } from './accounting.js';

interface ProtocolRow {
  readonly name: string;
  readonly path: string;
  readonly body: string;
  /** The answer's text events. */
  readonly content: string;
  /** What follows the text before the final event (finish reason, usage). */
  readonly closing: string;
  /** The protocol's final event: the client stops reading once it has it. */
  readonly finalEvent: string;
}

function sse(type: string, data: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}

const PROTOCOLS: readonly ProtocolRow[] = [
  {
    name: 'OpenAI chat, [DONE]',
    path: '/v1/chat/completions',
    body: '{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}',
    content: `${chatChunk({ content: 'hi' })}${chatChunk({ content: ' there' })}`,
    closing: `${chatChunk({}, 'stop')}${usageChunk(3, 2)}`,
    finalEvent: 'data: [DONE]\n\n',
  },
  {
    name: 'Responses, response.completed',
    path: '/v1/responses',
    body: '{"model":"m","stream":true,"input":"hi"}',
    content: `${sse('response.created', { response: { object: 'response', status: 'in_progress' } })}${sse('response.output_text.delta', { delta: 'hi' })}${sse('response.output_text.delta', { delta: ' there' })}`,
    closing: '',
    finalEvent: sse('response.completed', {
      response: { object: 'response', status: 'completed', usage: { input_tokens: 3, output_tokens: 2 } },
    }),
  },
  {
    name: 'Anthropic, message_stop',
    path: '/v1/messages',
    body: '{"model":"m","stream":true,"max_tokens":8,"messages":[{"role":"user","content":"hi"}]}',
    content: `${sse('message_start', { message: { usage: { input_tokens: 3 } } })}${sse('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'hi' } })}${sse('content_block_delta', { index: 0, delta: { type: 'text_delta', text: ' there' } })}`,
    closing: sse('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 2 } }),
    finalEvent: sse('message_stop', {}),
  },
];

/** The delays of the upstream's end of body after the final event, as the probe that found the fault used. */
const END_DELAYS_MS = [0, 1, 5, 200] as const;
const STREAMS_PER_DELAY = 10;

interface Read {
  readonly status: number;
  readonly text: string;
}

/** Reads the answer until `until` is in it, then closes the connection (what the openai package 7.x does). */
async function readUntilThenClose(url: string, row: ProtocolRow, until: string): Promise<Read> {
  const response = await request(url + row.path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: row.body,
  });
  let text = '';
  for await (const chunk of response.body) {
    text += (chunk as Buffer).toString('utf8');
    if (text.includes(until)) break; // breaking out of the loop destroys the body: the connection closes
  }
  return { status: response.statusCode, text };
}

for (const row of PROTOCOLS) {
  test(`${row.name}: a client that closes at the final event is ok whatever the end of body's delay`, async () => {
    let delayMs = 0;
    const upstream = await startUpstream((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(row.content + row.closing);
      if (delayMs === 0) {
        res.end(row.finalEvent);
        return;
      }
      res.write(row.finalEvent);
      const end = setTimeout(() => res.end(), delayMs);
      res.once('close', () => clearTimeout(end));
    });
    const gateway = await startGateway({ upstreams: [{ name: 'u', baseUrl: upstream.url, keyless: true }] });
    let sent = 0;
    const byDelay = new Map<number, string[]>();
    try {
      for (const delay of END_DELAYS_MS) {
        delayMs = delay;
        const from = gateway.records.length;
        const reads = await Promise.all(
          Array.from({ length: STREAMS_PER_DELAY }, () =>
            readUntilThenClose(gateway.url, row, row.finalEvent),
          ),
        );
        sent += reads.length;
        for (const read of reads) {
          assert.equal(read.status, 200);
          assert.ok(read.text.endsWith(row.finalEvent), `the client got the final event: ${read.text}`);
        }
        await gateway.recordsAfter(sent);
        byDelay.set(
          delay,
          gateway.records.slice(from).map((r) => r.outcome),
        );
      }
    } finally {
      const records = await closeAndAccount(gateway, sent);
      await upstream.close();
      for (const [delay, outcomes] of byDelay) {
        assert.deepEqual(
          outcomes.filter((o) => o !== 'ok'),
          [],
          `end of body ${delay} ms after the final event: ${outcomes.join(', ')}`,
        );
      }
      for (const r of records) {
        assert.equal(r.outputTokens, 2);
        assert.notEqual(r.finishReason, null);
      }
    }
  });

  test(`${row.name}: a client that closes before the final event is client_abort`, async () => {
    const upstream = await startUpstream((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(row.content);
      // The rest comes later than the client waits.
      const later = setTimeout(() => res.end(row.closing + row.finalEvent), 2000);
      res.once('close', () => clearTimeout(later));
    });
    const gateway = await startGateway({ upstreams: [{ name: 'u', baseUrl: upstream.url, keyless: true }] });
    // The client leaves once it has the text, before the finish reason and the final event.
    const read = await readUntilThenClose(gateway.url, row, row.content);
    assert.equal(read.status, 200);
    assert.equal(read.text, row.content);
    const [record] = await gateway.recordsAfter(1);
    assert.equal(record?.outcome, 'client_abort');
    await closeAndAccount(gateway, 1);
    await upstream.close();
  });
}

// bench's records follow the same rule: a request it stops reading once the final event arrived (here its planned
// cancellation, 1 s after the send, while the upstream holds the end of body 3 s; the first 1 s leaves room for a
// loaded machine's headers) is ok, in its records and
// the gateway's. Before the rule both said cancelled / client_abort.
test("bench: requests stopped after the final event are ok in bench's records and the gateway's", async () => {
  const upstream = await startUpstream((req, res) => {
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"object":"list","data":[{"id":"m","object":"model"}]}');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(`${chatChunk({ content: 'hi' })}${chatChunk({ content: ' there' }, 'length')}data: [DONE]\n\n`);
    const end = setTimeout(() => res.end(), 3000);
    res.once('close', () => clearTimeout(end));
  });
  const gateway = await startGateway({ upstreams: [{ name: 'u', baseUrl: upstream.url, keyless: true }] });
  const dir = scratchDir();
  const n = 8;
  const run = await bench(
    [
      '--base-url',
      gateway.url,
      '--model',
      'm',
      '--dataset-name',
      'random',
      '--random-input-len',
      '8',
      '--random-output-len',
      '2',
      '--num-prompts',
      String(n),
      '--request-rate',
      'inf',
      '--request-cancellation-rate',
      '100',
      '--request-cancellation-delay',
      '1',
      '--request-id-prefix',
      'fin-',
      '--disable-tqdm',
      '--no-server-metrics',
      '--save-detailed',
      '--result-dir',
      dir,
      '--result-filename',
      'run.json',
    ],
    cleanEnv(),
  );
  assert.equal(run.code, 0, run.stderr);
  const outcomes = readFileSync(join(dir, 'run.records.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => (JSON.parse(line) as { outcome: string }).outcome);
  assert.deepEqual(outcomes, Array<string>(n).fill('ok'), "bench's records");
  const ours = () => gateway.records.filter((r) => r.requestId.startsWith('fin-'));
  while (ours().length < n) await gateway.recordsAfter(gateway.records.length + 1);
  // bench also asked the gateway for its models: that request is in the accounting too.
  const records = await closeAndAccount(gateway, gateway.records.length);
  assert.deepEqual(
    records.filter((r) => r.requestId.startsWith('fin-')).map((r) => r.outcome),
    Array<string>(n).fill('ok'),
    "the gateway's records",
  );
  await upstream.close();
});
