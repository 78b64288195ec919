// Regenerates loadgen/data/sharegpt-sample.json, the small ShareGPT-format file bundled for demos and tests:
//
//   npm run build && node dist/loadgen/data/make-sharegpt-sample.js [output path]
//
// (run from the repository root; the default output is loadgen/data/sharegpt-sample.json). Deterministic: the
// same seed gives the same bytes. The text is generated from this project's own word lists
// (sample-vocabulary.ts); none comes from ShareGPT.
//
// What it contains, to look like the real file to a sampler: ~200 conversations with a long-tailed length mix
// (short questions, explanations, code with long answers, pasted documents to summarise, Chinese, emoji,
// multi-turn chats); and a few entries that vLLM's length filter drops (prompt or reply under 4 tokens, prompt
// over 1024, prompt + reply over 2048). Every entry is well-formed (an id, two or more turns of string values), so
// vLLM's own benchmark reads the file and a demo prints no note; the malformed entries a reader must survive live
// in test/loadgen/fixtures/sharegpt-malformed.json.

import { writeFileSync } from 'node:fs';
import { SeededRandom } from '../../src/shared/random.js';
import { estimateTokens } from '../../src/shared/token-estimate.js';
import {
  CHINESE_SENTENCES,
  CONNECTORS,
  EMOJI,
  FUNCTION_NAMES,
  GREETINGS,
  IDENTIFIERS,
  OBJECTS,
  OPENERS,
  SUBJECTS,
  TOPICS,
  VERBS,
} from './sample-vocabulary.js';

const SEED = 'tokenmeter-sharegpt-sample-v1';
const GENERATED_CONVERSATIONS = 186;
const random = new SeededRandom(SEED);

function pick<T>(list: readonly T[]): T {
  return list[random.int(0, list.length - 1)] as T;
}

/** Log-uniform integer in [low, high]: many short texts, a long tail, as in real chats. */
function lengthBetween(low: number, high: number): number {
  return Math.round(Math.exp(Math.log(low) + random.next() * (Math.log(high) - Math.log(low))));
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function sentence(): string {
  const core = `${pick(SUBJECTS)} ${pick(VERBS)} ${pick(OBJECTS)}`;
  const lead = random.next() < 0.35 ? `${pick(CONNECTORS)} ` : '';
  const tail = random.next() < 0.3 ? `, and ${pick(SUBJECTS)} ${pick(VERBS)} ${pick(OBJECTS)}` : '';
  return lead === '' ? `${capitalise(core)}${tail}.` : `${lead}${core}${tail}.`;
}

/** English prose of at least `tokens` tokens (built-in rule), in paragraphs of 3-6 sentences. */
function prose(tokens: number): string {
  const paragraphs: string[] = [];
  let current: string[] = [];
  let count = 0;
  while (count < tokens) {
    const next = sentence();
    current.push(next);
    count += estimateTokens(next);
    if (current.length >= random.int(3, 6)) {
      paragraphs.push(current.join(' '));
      current = [];
    }
  }
  if (current.length > 0) paragraphs.push(current.join(' '));
  return paragraphs.join('\n\n');
}

function typescriptFunction(): string {
  const [list, limit, total] = [pick(IDENTIFIERS), pick(IDENTIFIERS), pick(IDENTIFIERS)];
  return [
    `function ${pick(FUNCTION_NAMES)}(${list}: number[], ${limit}Value: number): number {`,
    `  let ${total}Sum = 0;`,
    `  for (const value of ${list}) {`,
    `    if (value > ${limit}Value) ${total}Sum += value; // skip small ${list}`,
    '  }',
    `  return ${total}Sum / Math.max(1, ${list}.length);`,
    '}',
  ].join('\n');
}

function pythonFunction(): string {
  const [list, key] = [pick(IDENTIFIERS), pick(IDENTIFIERS)];
  const name = pick(FUNCTION_NAMES).replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  return [
    `def ${name}(${list}, ${key}=None):`,
    `    """Return the ${list} grouped by ${key}."""`,
    '    groups = {}',
    `    for item in ${list}:`,
    `        groups.setdefault(item.get("${key}"), []).append(item)`,
    `    return {k: len(v) for k, v in sorted(groups.items(), key=lambda kv: str(kv[0]))}`,
  ].join('\n');
}

/** A fenced code block of at least `tokens` tokens. */
function code(tokens: number): string {
  const python = random.next() < 0.5;
  const parts: string[] = [];
  let count = 0;
  while (count < tokens) {
    const next = python ? pythonFunction() : typescriptFunction();
    parts.push(next);
    count += estimateTokens(next);
  }
  return `\`\`\`${python ? 'python' : 'typescript'}\n${parts.join('\n\n')}\n\`\`\``;
}

function chinese(tokens: number): string {
  let text = '';
  while (estimateTokens(text) < tokens) text += pick(CHINESE_SENTENCES);
  return text;
}

function withEmoji(text: string): string {
  return text.replace(/\. /g, () => (random.next() < 0.5 ? `. ${pick(EMOJI)} ` : '. ')) + ` ${pick(EMOJI)}`;
}

type Turns = Array<{ from: string; value: string }>;

function exchange(prompt: string, reply: string): Turns {
  return [
    { from: 'human', value: prompt },
    { from: 'gpt', value: reply },
  ];
}

/** One conversation of a kind drawn with realistic weights. */
function conversation(): Turns {
  const roll = random.next();
  const topic = pick(TOPICS);
  if (roll < 0.25) {
    const question = `${pick(OPENERS)} ${topic}? ${prose(lengthBetween(8, 40))}`;
    return exchange(question, prose(lengthBetween(30, 250)));
  }
  if (roll < 0.45) {
    return exchange(
      `${pick(OPENERS)} ${topic}? ${prose(lengthBetween(15, 110))}`,
      prose(lengthBetween(150, 700)),
    );
  }
  if (roll < 0.65) {
    const prompt = `This function is slow and I am not sure why. ${prose(lengthBetween(10, 60))}\n\n${code(lengthBetween(30, 280))}`;
    const reply = `${prose(lengthBetween(60, 250))}\n\n${code(lengthBetween(80, 400))}\n\n${prose(lengthBetween(20, 120))}`;
    return exchange(prompt, reply);
  }
  if (roll < 0.75) {
    return exchange(
      `Summarize the following notes in five bullet points:\n\n${prose(lengthBetween(250, 600))}`,
      Array.from({ length: 5 }, () => `- ${sentence()}`).join('\n') + (random.next() < 0.5 ? `\n\n${prose(40)}` : ''),
    );
  }
  if (roll < 0.87) return exchange(chinese(lengthBetween(15, 200)), chinese(lengthBetween(50, 500)));
  if (roll < 0.92) {
    return exchange(withEmoji(`${pick(OPENERS)} ${topic}? ${prose(lengthBetween(4, 25))}`), withEmoji(prose(lengthBetween(20, 120))));
  }
  const turns: Turns = [];
  const count = random.int(3, 6);
  for (let t = 0; t < count; t++) {
    const human = t % 2 === 0;
    turns.push({
      from: human ? 'human' : 'gpt',
      value: human ? `${pick(OPENERS)} ${pick(TOPICS)}? ${prose(lengthBetween(5, 80))}` : prose(lengthBetween(40, 400)),
    });
  }
  return turns;
}

function shareGptId(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let id = '';
  for (let i = 0; i < 7; i++) id += alphabet[random.int(0, alphabet.length - 1)];
  return `${id}_${random.int(0, 3)}`;
}

/** Well-formed entries the sampler must filter or keep, each for a known reason. */
function edgeCases(): unknown[] {
  return [
    // Dropped by the length filter.
    { id: shareGptId(), conversations: exchange(pick(GREETINGS), prose(60)) }, // prompt < 4 tokens
    { id: shareGptId(), conversations: exchange('hi', 'Hello! How can I help you today?') }, // prompt < 4 tokens
    { id: shareGptId(), conversations: exchange(`${pick(OPENERS)} ${pick(TOPICS)}?`, 'Sure.') }, // reply < 4
    { id: shareGptId(), conversations: exchange(`Proofread this:\n\n${prose(1150)}`, prose(120)) }, // prompt > 1024
    { id: shareGptId(), conversations: exchange(`Review this:\n\n${prose(950)}`, prose(1200)) }, // total > 2048
    // Kept: roles are never checked, turn 0 is the prompt whoever wrote it.
    { id: shareGptId(), conversations: [{ from: 'gpt', value: prose(40) }, { from: 'human', value: prose(30) }] },
  ];
}

function main(): void {
  const output = process.argv[2] ?? 'loadgen/data/sharegpt-sample.json';
  const entries: unknown[] = [];
  for (let i = 0; i < GENERATED_CONVERSATIONS; i++) entries.push({ id: shareGptId(), conversations: conversation() });
  entries.push(...edgeCases());
  random.shuffle(entries);
  // One element per block, indented like the real file, so a diff of a regenerated sample stays readable.
  const body = entries.map((entry) => JSON.stringify(entry, null, 2).replace(/^/gm, '  ')).join(',\n');
  writeFileSync(output, `[\n${body}\n]\n`);
  process.stdout.write(`wrote ${entries.length} entries to ${output}\n`);
}

main();
