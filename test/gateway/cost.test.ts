// Prices in the configuration, cost on every record and in tokenmeter_cost_total: a gateway with a priced and an
// unpriced upstream (both the simulator, which reports usage) over real sockets, and bad prices refused at start.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import type { GatewayConfigInput, PriceInput } from '../../src/gateway/config/config.js';
import type { RequestRecord } from '../../src/gateway/records/record.js';
import { UserFacingError } from '../../src/shared/user-facing-error.js';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { startGateway, type TestGateway } from './helpers/gateway.js';

const BIN = fileURLToPath(new URL('../../../bin/tokenmeter.js', import.meta.url));
const PRICE: PriceInput = { inputPerMillion: 0.15, outputPerMillion: 0.6, currency: 'USD' };

let sim: RunningSimulator;
let simModel: string;
let gateway: TestGateway;

/** `hosted` prices the simulator's model, reached through an alias; `local` (the default) sends it unpriced. */
function config(): GatewayConfigInput {
  return {
    upstreams: [
      {
        name: 'hosted',
        baseUrl: `${sim.url}/v1`,
        keyless: true,
        models: [{ alias: 'hosted-7b', id: simModel }],
        prices: { [simModel]: PRICE },
      },
      { name: 'local', baseUrl: `${sim.url}/v1`, keyless: true, default: true },
    ],
  };
}

before(async () => {
  sim = await startSimulator({ timing: { ttftMs: 2, itlMs: 1, jitter: 0 } });
  simModel = sim.config.servedModelNames[0] ?? '';
  gateway = await startGateway(config());
});
after(async () => {
  await gateway.close();
  await sim.close();
});

async function chat(model: string, stream: boolean, maxTokens: number): Promise<void> {
  const response = await request(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model,
      stream,
      max_tokens: maxTokens,
      messages: [{ role: 'user', content: 'Count to ten, slowly and in words.' }],
    }),
  });
  await response.body.text();
  assert.equal(response.statusCode, 200);
}

async function costSamples(): Promise<Map<string, number>> {
  const response = await request(`${gateway.url}/metrics`);
  const page = await response.body.text();
  const samples = new Map<string, number>();
  for (const line of page.split('\n')) {
    const match = /^tokenmeter_cost_total\{(.*)\} (\S+)$/.exec(line);
    if (match) samples.set(match[1] ?? '', Number(match[2]));
  }
  return samples;
}

function expectedCost(record: RequestRecord): { input: number; output: number } {
  assert.ok(record.promptTokens !== null && record.promptTokens > 0, 'the simulator reports prompt tokens');
  assert.ok(record.outputTokens !== null && record.outputTokens > 0, 'and output tokens');
  return {
    input: (record.promptTokens * PRICE.inputPerMillion) / 1e6,
    output: (record.outputTokens * PRICE.outputPerMillion) / 1e6,
  };
}

test('priced requests carry tokens x price / 1e6, the metric sums them, unpriced ones get null and no series', async () => {
  const before = gateway.records.length;
  await chat('hosted-7b', true, 7);
  await chat('hosted-7b', false, 5);
  await chat('hosted-7b', true, 3);
  await chat(simModel, true, 4);
  const records = (await gateway.recordsAfter(before + 4)).slice(before);
  const priced = records.filter((r) => r.upstream === 'hosted');
  assert.equal(priced.length, 3);
  let total = 0;
  for (const record of priced) {
    assert.equal(record.outputTokensSource, 'usage');
    const expected = expectedCost(record);
    assert.equal(record.costInput, expected.input);
    assert.equal(record.costOutput, expected.output);
    assert.equal(record.currency, 'USD');
    total += expected.input + expected.output;
  }
  const unpriced = records.find((r) => r.upstream === 'local');
  assert.ok(unpriced !== undefined && unpriced.outputTokens !== null, 'the unpriced model has tokens');
  assert.deepEqual(
    { costInput: unpriced.costInput, costOutput: unpriced.costOutput, currency: unpriced.currency },
    { costInput: null, costOutput: null, currency: null },
  );

  const samples = await costSamples();
  assert.deepEqual([...samples.keys()], ['upstream="hosted",model="hosted-7b",currency="USD"']);
  const exported = samples.get('upstream="hosted",model="hosted-7b",currency="USD"') ?? Number.NaN;
  // The counter adds input + output per request in the same order; only the page's number formatting and
  // summation order could differ, far below a relative 1e-9.
  assert.ok(Math.abs(exported - total) <= total * 1e-9, `exported ${exported}, records sum to ${total}`);
});

async function refused(prices: unknown, pattern: RegExp): Promise<void> {
  const input = config() as unknown as { upstreams: Record<string, unknown>[] };
  const hosted = { ...input.upstreams[0], prices };
  await assert.rejects(
    startGateway({ upstreams: [hosted, input.upstreams[1]] } as unknown as GatewayConfigInput),
    (error: unknown) => {
      assert.ok(error instanceof UserFacingError, String(error));
      assert.match(error.message, pattern);
      return true;
    },
  );
}

test('bad prices are refused at start, naming the field', async () => {
  await refused(
    { [simModel]: { ...PRICE, currency: 'usd' } },
    /upstreams\[0\]\.prices\..*\.currency must be an ISO 4217 currency code .*did you mean 'USD'/,
  );
  await refused({ [simModel]: { ...PRICE, currency: 'DOLLARS' } }, /\.currency must be an ISO 4217/);
  await refused(
    { [simModel]: { ...PRICE, inputPerMillion: -1 } },
    /prices\..*\.inputPerMillion must be a number >= 0/,
  );
  await refused(
    { [simModel]: { inputPerMillion: 1, currency: 'USD' } },
    /prices\..*\.outputPerMillion is missing/,
  );
  await refused(
    { [simModel]: { ...PRICE, inputPerMilion: 1 } },
    /prices\..*\.inputPerMilion is not a known setting \(did you mean 'inputPerMillion'\?\)/,
  );
  // Keyed by the alias instead of the ID the upstream receives: it would price nothing.
  await refused(
    { 'hosted-7b': PRICE },
    new RegExp(`prices\\.hosted-7b prices a model this upstream never receives.*did you mean '${simModel}'`),
  );
  await refused('cheap', /upstreams\[0\]\.prices must be an object of model IDs to prices/);
});

test('tokenmeter serve exits 1 on a bad price, naming the field', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tokenmeter-cost-'));
  try {
    const file = join(dir, 'tokenmeter.config.json');
    const input = config();
    const hosted = { ...input.upstreams[0], prices: { [simModel]: { ...PRICE, currency: 'XYZ' } } };
    await writeFile(file, JSON.stringify({ upstreams: [hosted, input.upstreams[1]] }));
    const child = spawn(process.execPath, [BIN, 'serve', '--config', file, '--port', '0'], {
      env: { PATH: process.env['PATH'] },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const [code] = await once(child, 'exit');
    assert.equal(code, 1);
    assert.match(stderr, /upstreams\[0\]\.prices\..*\.currency must be an ISO 4217 currency code/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
