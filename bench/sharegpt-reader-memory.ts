// Memory benchmark of the streaming ShareGPT reader and the two-pass sampler on a file bigger than the real
// ShareGPT_V3_unfiltered_cleaned_split.json (~670 MB, over V8's maximum string length, so it cannot be
// JSON.parse'd whole). Not part of `npm test`. Run from the repository root:
//
//   npm run build && node dist/bench/sharegpt-reader-memory.js [size in MB, default 700]
//
// It writes a synthetic ShareGPT-format file into the OS temp folder (streamed; 1-4 exchanges of 5-500 words
// per conversation, ~5 KB each, with quotes, escapes, CJK and emoji sprinkled in), then measures, each in a
// fresh child process: (1) streaming every entry through ShareGptReader, (2) sampleShareGpt for 1000 prompts
// with the built-in tokenizer. It prints the elapsed time and peak RSS (getrusage maxrss) of each, then
// deletes the file.

import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ShareGptReader } from '../loadgen/datasets/sharegpt-reader.js';
import { sampleShareGpt } from '../loadgen/datasets/sharegpt-sampler.js';
import { builtinTokenizer } from '../loadgen/tokenizer/tokenizer.js';
import { SeededRandom } from '../src/shared/random.js';

const WORDS =
  'the of and to in is you that it for was on are with as this be at have from or one had by but not what all were when we there can an your which their said if do will each about how up out them then she many some so these would other into has more her two like him see time could no make than first been its who now people my made over did down only way find use may water long little very after words called just where most know'.split(
    ' ',
  );
const SPECIALS = [
  '"quoted"',
  'back\\slash',
  'tab\there',
  'new\nline',
  '中文字符',
  '😀🚀',
  '{braces}',
  '[brackets]',
];

function text(random: SeededRandom, words: number): string {
  const parts: string[] = [];
  for (let i = 0; i < words; i++) {
    parts.push(
      random.next() < 0.02
        ? (SPECIALS[random.int(0, SPECIALS.length - 1)] as string)
        : (WORDS[random.int(0, WORDS.length - 1)] as string),
    );
  }
  return parts.join(' ');
}

async function generate(path: string, targetBytes: number): Promise<number> {
  const random = new SeededRandom('bench');
  const out = createWriteStream(path);
  let written = 0;
  let count = 0;
  const write = async (chunk: string): Promise<void> => {
    written += Buffer.byteLength(chunk);
    if (!out.write(chunk)) await once(out, 'drain');
  };
  await write('[\n');
  while (written < targetBytes) {
    const turns = Array.from({ length: 2 * random.int(1, 4) }, (_, t) => ({
      from: t % 2 === 0 ? 'human' : 'gpt',
      value: text(random, t % 2 === 0 ? random.int(5, 300) : random.int(50, 500)),
    }));
    await write(
      `${count === 0 ? '' : ',\n'}${JSON.stringify({ id: `bench_${count}`, conversations: turns }, null, 2)}`,
    );
    count++;
  }
  await write('\n]\n');
  out.end();
  await once(out, 'finish');
  return count;
}

async function measure(mode: string, path: string): Promise<void> {
  const started = performance.now();
  let summary: string;
  if (mode === 'read') {
    const reader = new ShareGptReader(path);
    let turns = 0;
    for await (const element of reader) turns += element.conversation.conversations.length;
    summary = `read ${reader.stats.valid} conversations (${turns} turns), ${reader.stats.malformed} malformed`;
  } else {
    const sample = await sampleShareGpt({ path, numPrompts: 1000, seed: 0, tokenizer: builtinTokenizer });
    summary = `sampled ${sample.requests.length} of ${sample.stats.eligible} eligible (examined ${sample.stats.examined})`;
  }
  const seconds = (performance.now() - started) / 1000;
  const peakMiB = process.resourceUsage().maxRSS / 1024;
  process.stdout.write(`${mode}: ${summary}; ${seconds.toFixed(1)} s; peak RSS ${peakMiB.toFixed(0)} MiB\n`);
}

async function main(): Promise<void> {
  const [mode, path] = process.argv.slice(2);
  if ((mode === 'read' || mode === 'sample') && path !== undefined) return measure(mode, path);

  const megabytes = Number(mode ?? 700);
  const dir = mkdtempSync(join(tmpdir(), 'tokenmeter-bench-'));
  const file = join(dir, 'sharegpt-bench.json');
  try {
    const started = performance.now();
    const count = await generate(file, megabytes * 1024 * 1024);
    const size = statSync(file).size;
    process.stdout.write(
      `generated ${count} conversations, ${(size / 1024 / 1024).toFixed(0)} MiB in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
    );
    const self = fileURLToPath(import.meta.url);
    for (const step of ['read', 'sample']) {
      process.stdout.write(execFileSync(process.execPath, [self, step, file], { encoding: 'utf8' }));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
