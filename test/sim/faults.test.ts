// The simulator's faults: error rates and bodies, 429 with Retry-After, streams cut or stalled, errors inside a
// 200.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { request } from 'undici';
import { type SimOptions, startSimulator } from '../../src/sim/index.js';
import { chatBody, payloads, postAndCapture } from '../helpers/sse-capture.js';

const fast = { ttftMs: 5, itlMs: 5, jitter: 0, prefillMsPerToken: 0 };

async function withSim<T>(
  options: SimOptions,
  body: (url: string, sim: Awaited<ReturnType<typeof startSimulator>>) => Promise<T>,
) {
  const sim = await startSimulator({ timing: fast, ...options });
  try {
    return await body(sim.url, sim);
  } finally {
    await sim.close();
  }
}

test('error rate: the chosen status with an OpenAI error body', async () => {
  await withSim({ faults: { errorRate: 1, errorStatus: 503 } }, async (url) => {
    const res = await request(`${url}/v1/chat/completions`, {
      method: 'POST',
      body: JSON.stringify(chatBody()),
    });
    const json = (await res.body.json()) as { error: { code: string } };
    assert.equal(res.statusCode, 503);
    assert.equal(json.error.code, 'simulated_error');
  });
});

test('error rate is a fraction: about that share of requests fails, reproducibly', async () => {
  const statuses = async () =>
    withSim({ seed: 11, faults: { errorRate: 0.3 } }, async (url) => {
      const out: number[] = [];
      for (let i = 0; i < 40; i++) {
        const res = await request(`${url}/v1/chat/completions`, {
          method: 'POST',
          body: JSON.stringify(chatBody({ max_tokens: 1, stream: false })),
        });
        await res.body.dump();
        out.push(res.statusCode);
      }
      return out;
    });
  const first = await statuses();
  const failures = first.filter((s) => s === 500).length;
  assert.ok(failures >= 4 && failures <= 20, `${failures}/40 failed at rate 0.3`);
  assert.deepEqual(await statuses(), first, 'same seed, same failures');
});

test('rate limit: 429 with Retry-After', async () => {
  await withSim({ faults: { rateLimitRate: 1, retryAfterS: 7 } }, async (url) => {
    const res = await request(`${url}/v1/chat/completions`, {
      method: 'POST',
      body: JSON.stringify(chatBody()),
    });
    const json = (await res.body.json()) as { error: { type: string } };
    assert.equal(res.statusCode, 429);
    assert.equal(res.headers['retry-after'], '7');
    assert.equal(json.error.type, 'rate_limit_error');
  });
});

test('cut after n tokens: the connection drops with no finish reason and no [DONE]', async () => {
  await withSim({ faults: { cutAfterTokens: 3 } }, async (url, sim) => {
    const captured = await postAndCapture(
      `${url}/v1/chat/completions`,
      chatBody({ max_tokens: 10, ignore_eos: true }),
      {
        'x-request-id': 'cut',
      },
    );
    assert.ok(captured.error, 'the client sees a broken stream');
    const events = payloads(captured);
    assert.equal(events.length, 1 + 3, 'role delta and three content chunks');
    assert.ok(!events.includes('[DONE]'));
    assert.equal(sim.truth('cut')?.fault, 'cut after 3 tokens');
  });
});

test('stall: one pause of stallMs after n tokens, then the stream resumes', async () => {
  await withSim({ faults: { stallAfterTokens: 2, stallMs: 150 } }, async (url, sim) => {
    const captured = await postAndCapture(
      `${url}/v1/chat/completions`,
      chatBody({ max_tokens: 5, ignore_eos: true }),
      {
        'x-request-id': 'stall',
      },
    );
    const planned = sim.truth('stall')?.plannedChunkAtMs ?? [];
    const gaps = planned.slice(1).map((t, i) => t - (planned[i] as number));
    assert.deepEqual(
      gaps.map((g) => Math.round(g)),
      [5, 155, 5, 5],
    );
    const arrivals = captured.events.slice(1, 6).map((e) => e.atMs);
    assert.ok((arrivals[2] as number) - (arrivals[1] as number) >= 150, 'the client waits through the stall');
    assert.equal(payloads(captured).at(-1), '[DONE]');
  });
});

test('HTTP 200 with an error object instead of choices (the "reading choices" failure)', async () => {
  await withSim({ faults: { errorBodyRate: 1 } }, async (url) => {
    const plain = await request(`${url}/v1/chat/completions`, {
      method: 'POST',
      body: JSON.stringify(chatBody({ stream: false })),
    });
    const json = (await plain.body.json()) as Record<string, unknown>;
    assert.equal(plain.statusCode, 200);
    assert.ok(json['error']);
    assert.equal(json['choices'], undefined);

    const streamed = await postAndCapture(`${url}/v1/chat/completions`, chatBody());
    assert.equal(streamed.status, 200);
    const events = payloads(streamed);
    assert.equal(events.length, 1, 'one event, and it carries no choices');
    const [only] = events as Array<Record<string, unknown>>;
    assert.ok(only?.['error']);
    assert.equal(only?.['choices'], undefined);
  });
});
