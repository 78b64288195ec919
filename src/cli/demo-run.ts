// What `tokenmeter demo` runs: the simulator, one streamed answer printed as it arrives with its timings, then a
// gateway in front of the simulator and the bundled sample replayed through it, printing the benchmark summary
// (demo-replay.ts). The simulator's span export needs the receiver's port before the receiver starts
// (freeLoopbackPort, at the end).

import { createServer } from 'node:net';
import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import { streamFigures } from '../measure/stream-figures.js';
import { StreamMeter } from '../measure/stream-meter.js';
import { protocolByName } from '../protocols/index.js';
import { DEFAULT_MODEL_NAME } from '../sim/config.js';
import { startSimulator } from '../sim/index.js';
import { replayThroughGateway } from './demo-replay.js';
import { waitForShutdownSignal } from './signals.js';

const PROMPT = 'In two sentences, why does time to first token matter for a chat product?';

async function streamOnce(url: string, write: (text: string) => void): Promise<StreamMeter> {
  const chat = protocolByName('openai-chat');
  const classifier = chat.classifier;
  const meter = new StreamMeter({ classifier, keepText: false });
  const res = await request(`${url}/v1/${chat.endpoint}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: DEFAULT_MODEL_NAME,
      messages: [{ role: 'user', content: PROMPT }],
      max_tokens: 60,
      stream: true,
      stream_options: { include_usage: true },
    }),
  });
  const decoder = new TextDecoder();
  let pending = '';
  for await (const chunk of res.body) {
    meter.onBytes(chunk as Buffer, performance.now());
    // Print the generated text live: a minimal reading of the events, good enough for a demo.
    pending += decoder.decode(chunk as Buffer, { stream: true });
    const blocks = pending.split('\n\n');
    pending = blocks.pop() ?? '';
    for (const block of blocks) {
      const data = block.startsWith('data: ') ? block.slice(6) : '';
      if (data === '' || data === '[DONE]') continue;
      const parsed = JSON.parse(data) as { choices?: Array<{ delta?: { content?: string } }> };
      write(parsed.choices?.[0]?.delta?.content ?? '');
    }
  }
  meter.end(performance.now());
  return meter;
}

/** What `tokenmeter demo`'s flags asked for. */
export interface DemoSettings {
  readonly port: number;
  readonly answerOnly: boolean;
  readonly prompts: number;
  readonly rate: number;
  readonly keepRunning: boolean;
  readonly logFormat: 'json' | 'pretty';
}

export async function runDemo(options: DemoSettings): Promise<number> {
  // The simulator exports its llm_request spans, as vLLM would with --otlp-traces-endpoint, to the replay's span
  // receiver, so the report can split each request's time down to the server's queue, prefill and decode. A short
  // batch delay: the receiver holds each record until its span arrives, and the demo should not wait 5 s for it.
  const spanPort = await freeLoopbackPort();
  const sim = await startSimulator(
    { port: options.port, otlpTracesEndpoint: `http://127.0.0.1:${spanPort}/v1/traces` },
    { ...process.env, OTEL_BSP_SCHEDULE_DELAY: '100' },
  );
  const out = process.stdout;
  out.write(`Simulator (a vLLM stand-in) listening on ${sim.url}\n\nPrompt: ${PROMPT}\nAnswer: `);
  const start = performance.now();
  const meter = await streamOnce(sim.url, (text) => out.write(text));
  const l = streamFigures(meter.result(), start);
  out.write(
    `\n\nTTFT ${l.ttftMs?.toFixed(1)} ms, TPOT ${l.tpotMs?.toFixed(1)} ms, ` +
      `${l.outputTokens} output tokens (from ${l.outputTokensSource}), end-to-end ${l.lastTokenMs?.toFixed(1)} ms\n`,
  );
  if (!options.answerOnly) {
    await replayThroughGateway({
      simUrl: sim.url,
      spanPort,
      prompts: options.prompts,
      rate: options.rate,
      write: (text) => out.write(text),
      logFormat: options.logFormat,
    });
  }
  const curl = `curl -N ${sim.url}/v1/chat/completions -H 'content-type: application/json' -d '{"model": "${DEFAULT_MODEL_NAME}", "messages": [{"role": "user", "content": "Hello"}], "max_tokens": 20, "stream": true}'`;
  if (options.keepRunning) {
    out.write(`\nTry it yourself:\n  ${curl}\nCtrl-C to stop.\n`);
    await waitForShutdownSignal();
  }
  await sim.close();
  return 0;
}

// A loopback port nothing listens on right now, for a listener that another process must be told about before
// it starts (the demo's simulator exports its spans to the load generator's receiver, which starts later). Bound
// and released at once, so another process could take it in between: only for loopback, only where a failed
// bind is reported, never for a service.
export async function freeLoopbackPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no loopback port was given');
  return address.port;
}
