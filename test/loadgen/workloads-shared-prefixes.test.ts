// Shared prefixes against the prefix-caching simulator (--enable-prefix-caching), end to end through the CLI:
// vLLM's prefix_repetition dataset and --shared-system-prompt-length make later requests begin with blocks the
// simulator has already seen, so it reports them cached (`prompt_tokens_details.cached_tokens`, whole 16-token
// blocks) and the client records what it reported; the same workload without the shared part reports none.
// Requests go one at a time (--max-concurrency 1), so every request finds the earlier ones' blocks cached.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { type RequestTruth, type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { runCli } from '../helpers/run-cli.js';

const folder = mkdtempSync(join(tmpdir(), 'tokenmeter-shared-prefixes-'));
const TIMING = { ttftMs: 2, itlMs: 1, prefillMsPerToken: 0.05, jitter: 0 };
const BLOCK = 16;

interface ClientRecord {
  readonly index: number;
  readonly outcome: string;
  readonly cachedPromptTokens?: number | null;
}

/** Runs bench against a fresh prefix-caching simulator; each request's cached tokens in send order, as the
 *  client recorded them, checked against the simulator's own truth. */
async function cachedTokensOf(name: string, args: readonly string[]): Promise<number[]> {
  const sim: RunningSimulator = await startSimulator({ timing: TIMING, kv: { enablePrefixCaching: true } });
  try {
    const records = join(folder, `${name}.records.jsonl`);
    const prefix = `${name}-`;
    const res = await runCli([
      'bench',
      '--base-url',
      sim.url,
      '--model',
      'tokenmeter/sim-7b',
      '--max-concurrency',
      '1',
      '--request-id-prefix',
      prefix,
      '--records-file',
      records,
      '--disable-tqdm',
      ...args,
    ]);
    assert.equal(res.code, 0, res.stderr + res.stdout);
    const lines = readFileSync(records, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as ClientRecord)
      .sort((a, b) => a.index - b.index);
    for (const r of lines) {
      assert.equal(r.outcome, 'ok');
      const truth = sim.truth(`${prefix}${r.index}`) as RequestTruth;
      assert.equal(
        r.cachedPromptTokens,
        truth.cachedTokens,
        `request ${r.index}: the client records the server's`,
      );
    }
    return lines.map((r) => r.cachedPromptTokens as number);
  } finally {
    await sim.close();
  }
}

const COMPLETIONS = ['--backend', 'openai', '--endpoint', '/v1/completions'];

test("prefix_repetition: after each prefix's first prompt, its whole prefix is found cached", async () => {
  const cached = await cachedTokensOf('repeat', [
    ...COMPLETIONS,
    '--dataset-name',
    'prefix_repetition',
    '--prefix-repetition-prefix-len',
    '64',
    '--prefix-repetition-suffix-len',
    '16',
    '--prefix-repetition-num-prefixes',
    '2',
    '--prefix-repetition-output-len',
    '4',
    '--num-prompts',
    '8',
    '--seed',
    '3',
  ]);
  // Two prefixes, so two first sightings; the six others find their 64-token prefix, 4 whole blocks.
  assert.equal(cached.filter((c) => c === 0).length, 2, cached.join(' '));
  assert.equal(cached.filter((c) => c === 64).length, 6, cached.join(' '));
  assert.equal(cached[0], 0);

  // The same lengths with nothing shared (the random dataset, no prefix): nothing is ever cached.
  const none = await cachedTokensOf('random', [
    ...COMPLETIONS,
    '--dataset-name',
    'random',
    '--random-input-len',
    '80',
    '--random-output-len',
    '4',
    '--num-prompts',
    '8',
    '--seed',
    '3',
  ]);
  assert.deepEqual(none, [0, 0, 0, 0, 0, 0, 0, 0]);
});

test('--shared-system-prompt-length: every request after the first finds the system prompt cached, chat and completions', async () => {
  const dataset = join(folder, 'prompts.jsonl');
  const words = (n: number, tag: string): string =>
    Array.from({ length: n }, (_, i) => `${tag}${i}`).join(' ');
  writeFileSync(
    dataset,
    Array.from({ length: 5 }, (_, k) =>
      JSON.stringify({ prompt: words(20, `q${k}w`), output_tokens: 3 }),
    ).join('\n'),
  );
  const jsonl = ['--dataset-name', 'jsonl', '--dataset-path', dataset, '--num-prompts', '5'];
  const shared = ['--shared-system-prompt-length', '50'];
  // Completions: the prompt starts with the 50 tokens, so 3 whole blocks (48) are shared.
  const completions = await cachedTokensOf('sys-completions', [...COMPLETIONS, ...jsonl, ...shared]);
  assert.deepEqual(completions, [0, 48, 48, 48, 48]);
  // Chat: a system message (the template's 3 opening tokens, the 50, its closing one) and the user message's 3
  // opening tokens are shared, 57 tokens: 3 whole blocks again.
  const chat = await cachedTokensOf('sys-chat', [...jsonl, ...shared]);
  assert.deepEqual(chat, [0, 48, 48, 48, 48]);
  for (const c of [...completions, ...chat]) assert.equal(c % BLOCK, 0);
  // Without the option the same prompts share nothing.
  assert.deepEqual(await cachedTokensOf('sys-none', [...jsonl]), [0, 0, 0, 0, 0]);
});
