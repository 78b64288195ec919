// Reading a vLLM benchmark command line the way a POSIX shell and argparse would: the article's commands as pasted
// (their line breaks folded into `\ `), quoting, variables, assignments in front, `env -u`, both launchers, both
// flag forms, and what follows the command; and the corrected command reprinting unchanged words as typed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BENCH_FLAG_KINDS } from '../../src/cli/doctor-fixes.js';
import { flagValue, parseBenchCommand } from '../../src/doctor/command-line/bench-invocation.js';
import { applyToCommand, formatCommand } from '../../src/doctor/command-line/command-source.js';
import { splitShellWords } from '../../src/doctor/command-line/shell-words.js';
import { UsageError } from '../../src/shared/user-facing-error.js';
import { runCli } from '../helpers/run-cli.js';

// Section 3 of the article, as its web page shows it (line breaks folded).
const ARTICLE_ORIGINAL =
  'python benchmark_serving.py --backend vllm \\ --tokenizer /root/autodl-tmp/Qwen/Qwen2___5-Coder-32B-Instruct-GPTQ-Int8 \\ --dataset /root/LLaMA-Factory/ShareGPT_V3_unfiltered_cleaned_split.json \\ --num-prompts 500 \\ --request-rate 1 \\ --host 127.0.0.1 \\ --port 8080';

test("the article's original command: every flag and value", () => {
  const invocation = parseBenchCommand(ARTICLE_ORIGINAL, {}, BENCH_FLAG_KINDS);
  assert.equal(invocation.form, 'benchmark_serving.py');
  assert.deepEqual(
    invocation.flags.map((f) => [f.name, f.values.map((v) => v.text).join(' ')]),
    [
      ['backend', 'vllm'],
      ['tokenizer', '/root/autodl-tmp/Qwen/Qwen2___5-Coder-32B-Instruct-GPTQ-Int8'],
      ['dataset', '/root/LLaMA-Factory/ShareGPT_V3_unfiltered_cleaned_split.json'],
      ['num-prompts', '500'],
      ['request-rate', '1'],
      ['host', '127.0.0.1'],
      ['port', '8080'],
    ],
  );
});

test('variables expand from the environment and are remembered; an unset one expands to nothing', () => {
  const env = { TAOTOKEN_BASE_URL: 'https://taotoken.net/api' };
  const invocation = parseBenchCommand(
    `python benchmark_serving.py --base-url "$TAOTOKEN_BASE_URL" --api-key "\${TAOTOKEN_API_KEY}" --model 'a b' --trust-remote-code --goodput ttft:200 tpot:50 --label="x y"`,
    env,
    BENCH_FLAG_KINDS,
  );
  assert.deepEqual(flagValue(invocation, 'base-url'), {
    raw: '"$TAOTOKEN_BASE_URL"',
    text: 'https://taotoken.net/api',
    variables: ['TAOTOKEN_BASE_URL'],
  });
  assert.deepEqual(flagValue(invocation, 'api-key')?.variables, ['TAOTOKEN_API_KEY']);
  assert.equal(flagValue(invocation, 'api-key')?.text, '');
  assert.equal(flagValue(invocation, 'model')?.text, 'a b');
  assert.deepEqual(
    invocation.flags.find((f) => f.name === 'goodput')?.values.map((v) => v.text),
    ['ttft:200', 'tpot:50'],
  );
  assert.equal(invocation.flags.find((f) => f.name === 'trust-remote-code')?.values.length, 0);
  assert.equal(flagValue(invocation, 'label')?.text, 'x y');
});

test('assignments and env -u in front, vllm bench serve, and a pipe after', () => {
  const invocation = parseBenchCommand(
    'env -u HTTP_PROXY OPENAI_API_KEY="$K" vllm bench serve --model m 2>&1 | tee "bench_$(date +%Y%m%d_%H%M).log"',
    { K: 'secret' },
    BENCH_FLAG_KINDS,
  );
  assert.equal(invocation.form, 'vllm bench serve');
  assert.deepEqual(invocation.unset, ['HTTP_PROXY']);
  assert.deepEqual(invocation.assignments, [
    { name: 'OPENAI_API_KEY', raw: '"$K"', text: 'secret', variables: ['K'] },
  ]);
  assert.deepEqual(
    invocation.launcher.map((w) => w.text),
    ['vllm', 'bench', 'serve'],
  );
  assert.equal(invocation.tail, '2>&1 | tee "bench_$(date +%Y%m%d_%H%M).log"');
  // Reprinted as typed when nothing changes: the key's variable, never its value.
  const printed = formatCommand(applyToCommand(invocation, []));
  assert.equal(
    printed,
    'env -u HTTP_PROXY OPENAI_API_KEY="$K" vllm bench serve \\\n  --model m 2>&1 | tee "bench_$(date +%Y%m%d_%H%M).log"',
  );
  assert.ok(!printed.includes('secret'));
});

test('what cannot be read is refused with a reason, never run', () => {
  for (const [line, reason] of [
    ['python benchmark_serving.py --model $(cat model.txt)', /\$\(\.\.\.\) cannot be checked/],
    ['python benchmark_serving.py --model `cat model.txt`', /cannot be checked/],
    ["python benchmark_serving.py --model 'open", /single quote is not closed/],
    ['curl http://127.0.0.1:8000/v1/models', /not a vLLM benchmark command/],
    ['python benchmark_serving.py stray', /'stray' is not a flag/],
  ] as const) {
    assert.throws(
      () => parseBenchCommand(line, {}, BENCH_FLAG_KINDS),
      (error: unknown) => {
        assert.ok(error instanceof UsageError);
        assert.match(error.message, reason);
        return true;
      },
    );
  }
});

test('a backslash before a line break continues the line', () => {
  const { words } = splitShellWords('python benchmark_serving.py \\\n  --port 8001', {});
  assert.deepEqual(
    words.map((w) => w.text),
    ['python', 'benchmark_serving.py', '--port', '8001'],
  );
});

test('the doctor refuses flags the command itself carries, and --apply without --config (exit 2)', async () => {
  for (const [args, reason] of [
    [
      ['--command', 'vllm bench serve', '--model', 'm'],
      /--model: with --command or --config these come from/,
    ],
    [['--command', 'vllm bench serve', '--config', 'c.json'], /give one of them/],
    [['--command', 'vllm bench serve', '--apply'], /--apply goes with --config FILE/],
  ] as const) {
    const result = await runCli(['doctor', ...args]);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, reason);
  }
});

test("bench's switches come from its option table: --estimate (once missing from a list kept by hand) takes no value", () => {
  const invocation = parseBenchCommand('vllm bench serve --estimate --model m --smoke', {}, BENCH_FLAG_KINDS);
  assert.deepEqual(
    invocation.flags.map((f) => [f.name, f.values.map((v) => v.text)]),
    [
      ['estimate', []],
      ['model', ['m']],
      ['smoke', []],
    ],
  );
});

test('flags taking several values come from the option table too: --lora-modules reads every adapter', () => {
  const invocation = parseBenchCommand(
    'vllm bench serve --lora-modules a b c --model m --goodput ttft:500 tpot:50 --num-prompts 5',
    {},
    BENCH_FLAG_KINDS,
  );
  const values = (name: string) =>
    invocation.flags.filter((f) => f.name === name).flatMap((f) => f.values.map((v) => v.text));
  assert.deepEqual(values('lora-modules'), ['a', 'b', 'c']);
  assert.deepEqual(values('goodput'), ['ttft:500', 'tpot:50']);
  assert.deepEqual(values('model'), ['m']);
  assert.deepEqual(values('num-prompts'), ['5']);
});
