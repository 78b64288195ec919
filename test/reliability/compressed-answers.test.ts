// Fault rows for upstreams that compress. A stream compressed with gzip or brotli, flushed per event, is measured
// as the same stream uncompressed: the same outcome, token and chunk counts, and TTFT within what this machine
// allowed (each decoded chunk carries its compressed chunk's arrival time, src/measure/body-decoding.ts). And the
// official `openai` SDK, which sends `Accept-Encoding: gzip, deflate` by default, through the gateway to an
// upstream that compresses when asked and to one that always does: streamed and not, it gets whole answers, and a
// 401 quoting the gateway's upstream key reaches it with the key redacted. One record per request throughout.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import OpenAI from 'openai';
import type { RequestRecord } from '../../src/gateway/records/record.js';
import { startGateway, type TestGateway } from '../gateway/helpers/gateway.js';
import { chatChunk, startUpstream, usageChunk } from '../gateway/helpers/upstream.js';
import { measureStalls } from '../helpers/loop-stall.js';
import { closeAndAccount } from './accounting.js';
import {
  type CompressedAnswer,
  type Compression,
  negotiated,
  sendCompressed,
} from './compressing-upstream.js';

const KEY = 'sk-compress-row-8Hq2mZ1x';
const FIRST_TOKEN_MS = 150;
const GAP_MS = 30;
const TOKENS = 10;
/** Scheduling noise between two runs of one script on an idle machine; the stalls seen are added to it. */
const TTFT_TOLERANCE_MS = 15;

const STREAM: CompressedAnswer = {
  status: 200,
  headers: { 'content-type': 'text/event-stream' },
  parts: [
    ...Array.from({ length: TOKENS }, (_, i) => ({
      atMs: i === 0 ? FIRST_TOKEN_MS : GAP_MS,
      data: chatChunk({ content: `word${i} ` }),
    })),
    { atMs: 0, data: chatChunk({}, 'stop') },
    { atMs: 0, data: usageChunk(7, TOKENS) },
    { atMs: 0, data: 'data: [DONE]\n\n' },
  ],
};

const ANSWER: CompressedAnswer = {
  status: 200,
  headers: { 'content-type': 'application/json' },
  parts: [
    {
      atMs: 0,
      data: JSON.stringify({
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1,
        model: 'm',
        choices: [
          { index: 0, message: { role: 'assistant', content: 'hello there' }, finish_reason: 'stop' },
        ],
        usage: { prompt_tokens: 7, completion_tokens: 42, total_tokens: 49 },
      }),
    },
  ],
};

function unauthorized(authorization: string | undefined): CompressedAnswer {
  const message = `Incorrect API key provided: ${authorization}`;
  return {
    status: 401,
    headers: { 'content-type': 'application/json' },
    parts: [
      {
        atMs: 0,
        data: JSON.stringify({ error: { message, type: 'invalid_request_error', code: 'invalid_api_key' } }),
      },
    ],
  };
}

/** An upstream answering by `x-answer` (stream, json, 401), compressed as `compress` picks for the request. */
async function upstreamCompressing(compress: (accepted: Compression | null) => Compression | null) {
  return startUpstream((req, res, body) => {
    const compression = compress(negotiated(req));
    const streamed = (JSON.parse(body.toString() || '{}') as { stream?: boolean }).stream === true;
    const answer =
      req.headers['x-answer'] === '401'
        ? unauthorized(req.headers.authorization)
        : streamed
          ? STREAM
          : ANSWER;
    void sendCompressed(res, answer, compression);
  });
}

async function keyedGateway(upstreamUrl: string): Promise<TestGateway> {
  return startGateway(
    { upstreams: [{ name: 'u', baseUrl: upstreamUrl, keyEnv: 'COMPRESS_KEY' }] },
    { COMPRESS_KEY: KEY },
  );
}

function sdk(gateway: TestGateway): OpenAI {
  return new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: 'unused-by-a-keyless-gateway', maxRetries: 0 });
}

test('a compressed stream is measured as the same stream uncompressed: outcome, tokens, chunks, TTFT', async (t) => {
  const records = new Map<string, RequestRecord>();
  const stalls = measureStalls();
  for (const compression of [null, 'gzip', 'br'] as const) {
    const upstream = await upstreamCompressing(() => compression);
    t.after(() => upstream.close());
    const gateway = await keyedGateway(upstream.url);
    t.after(() => gateway.close());
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"model":"m","stream":true,"stream_options":{"include_usage":true}}',
    });
    assert.equal(
      await response.text(),
      STREAM.parts.map((p) => p.data).join(''),
      `${compression}: the stream, decoded`,
    );
    const [record] = await closeAndAccount(gateway, 1);
    records.set(compression ?? 'identity', record as RequestRecord);
  }
  const stalledMs = stalls.stop();
  const plain = records.get('identity') as RequestRecord;
  for (const compression of ['gzip', 'br']) {
    const record = records.get(compression) as RequestRecord;
    const facts = (r: RequestRecord) => [
      r.outcome,
      r.promptTokens,
      r.outputTokens,
      r.contentChunks,
      r.finishReason,
    ];
    assert.deepEqual(facts(record), facts(plain), compression);
    assert.deepEqual(facts(plain), ['ok', 7, TOKENS, TOKENS, 'stop']);
    const apart = Math.abs((record.ttftMs ?? Number.NaN) - (plain.ttftMs ?? Number.NaN));
    t.diagnostic(
      `${compression}: TTFT ${record.ttftMs?.toFixed(1)} ms, uncompressed ${plain.ttftMs?.toFixed(1)} ms, worst stall ${stalledMs.toFixed(1)} ms`,
    );
    assert.ok(
      apart < TTFT_TOLERANCE_MS + stalledMs,
      `${compression}: TTFT ${apart.toFixed(1)} ms from the uncompressed one`,
    );
  }
});

for (const [which, compress] of [
  ['compresses when asked', (accepted: Compression | null) => accepted],
  ['always compresses (gzip)', () => 'gzip' as const],
] as const) {
  test(`openai SDK through the gateway to an upstream that ${which}: whole answers, the echoed key redacted`, async (t) => {
    const upstream = await upstreamCompressing(compress);
    t.after(() => upstream.close());
    const gateway = await keyedGateway(upstream.url);
    t.after(() => gateway.close());
    const client = sdk(gateway);

    const answer = await client.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
    });
    assert.equal(answer.choices[0]?.message.content, 'hello there');
    assert.equal(answer.usage?.completion_tokens, 42);

    const stream = await client.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    assert.equal(text, Array.from({ length: TOKENS }, (_, i) => `word${i} `).join(''));

    await assert.rejects(
      client.chat.completions.create(
        { model: 'm', messages: [{ role: 'user', content: 'hi' }] },
        { headers: { 'x-answer': '401' } },
      ),
      (error: unknown) => {
        assert.ok(error instanceof OpenAI.AuthenticationError, String(error));
        assert.ok(!error.message.includes(KEY), error.message);
        assert.match(error.message, /Incorrect API key provided: Bearer \[redacted\]/);
        return true;
      },
    );
    for (const seen of upstream.requests) assert.equal(seen.headers['accept-encoding'], 'identity');
    const records = await closeAndAccount(gateway, 3);
    assert.deepEqual(
      records.map((r) => [r.outcome, r.status, r.promptTokens, r.outputTokens]),
      [
        ['ok', 200, 7, 42],
        ['ok', 200, 7, TOKENS],
        ['http_error', 401, null, null],
      ],
    );
    assert.ok(!JSON.stringify(records).includes(KEY));
  });
}
