// Every bad input the CLI can get, through the real executable: each row is argv -> the one line it must print on
// stderr (and nothing else: local files and flags are checked before a run says anything), no stack trace, and
// the documented exit status (src/cli/command.ts, docs/loadgen-reference.md). Nothing here needs a server: local files and flags are checked
// before anything is sent, and the rows that would send point at a port nothing listens on.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { EXIT_RUN_FAILED, EXIT_USAGE } from '../../src/cli/command.js';
import { runCli } from '../helpers/run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'tokenmeter-bad-input-'));
const file = (name: string, text: string): string => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const notArray = file('object.json', '{"conversations": []}');
const empty = file('empty.json', '');
const emptyArray = file('empty-array.json', '[]');
const noConversation = file('malformed.json', '[{"id": "a", "conversations": null}]');
const oneTurn = file('one-turn.json', '[{"id": "a", "conversations": [{"from": "human", "value": "hi"}]}]');
const blankLines = file('blank.jsonl', '\n\n');
const notPrompts = file('not-prompts.jsonl', '{"text": "no prompt key"}\n');
const aFile = file('a-file', 'not a folder');
const badJson = file('bad.json', '{"num_prompts": 3,');
const unknownKey = file('unknown-key.json', '{"num_promts": 3}');
const badBackend = file('bad-backend.json', '{"backend": "vlm"}');
// Saved by Windows Notepad: a UTF-8 byte order mark first. Read past it, the file's own mistake is what is said.
const withByteOrderMark = file('bom.json', '\uFEFF{"num_promts": 3}');
const noTokenizer = join(dir, 'model-without-tokenizer');
mkdirSync(noTokenizer);
const unreadable = file('unreadable.json', '[]');
chmodSync(unreadable, 0o000);
const unwritable = join(dir, 'unwritable');
mkdirSync(unwritable, 0o555);
const missing = join(dir, 'bench_config.json');

// Rows that would send go nowhere: nothing listens on port 1.
const bench = ['bench', '--base-url', 'http://127.0.0.1:1', '--model', 'm', '--result-dir', dir];

type Row = readonly [argv: readonly string[], exit: number, line: RegExp];

const usageRows: Row[] = [
  [['simm'], EXIT_USAGE, /^tokenmeter: unknown command 'simm'\. Did you mean 'sim'\?/],
  [['sim', '--prot', '1'], EXIT_USAGE, /unknown option --prot for 'sim'\. Did you mean --port\?/],
  [['sim', 'extra'], EXIT_USAGE, /'sim' takes no positional arguments \(got 'extra'\)/],
  [['bench', '--num-prompts'], EXIT_USAGE, /--num-prompts needs a value: --num-prompts N/],
  [
    ['bench', '--num-prompts', '--seed', '3'],
    EXIT_USAGE,
    /--num-prompts needs a value .* got the flag --seed/,
  ],
  [['bench', '--num-prompts', '0'], EXIT_USAGE, /--num-prompts must be at least 1 \(got 0\)/],
  [
    ['bench', '--shared-system-prompt-length', '0'],
    EXIT_USAGE,
    /--shared-system-prompt-length must be at least 1 \(got 0\)/,
  ],
  [
    ['bench', '--prefix-repetition-num-prefixes', '0'],
    EXIT_USAGE,
    /--prefix-repetition-num-prefixes must be at least 1 \(got 0\)/,
  ],
  [['bench', '--num-prompts', 'ten'], EXIT_USAGE, /--num-prompts must be an integer \(got 'ten'\)/],
  [['bench', '--request-rate', '-1'], EXIT_USAGE, /--request-rate must be at least 0 \(got -1\)/],
  [['bench', '--probe-request-rate', '-2'], EXIT_USAGE, /--probe-request-rate must be at least 0 \(got -2\)/],
  [
    [...bench, '--probe-request-rate', '2', '--workers', '2'],
    EXIT_USAGE,
    /--probe-request-rate cannot be split across shards or workers: run it in one process/,
  ],
  [['bench', '--request-rate', 'fast'], EXIT_USAGE, /--request-rate must be a number \(got 'fast'\)/],
  [
    ['bench', '--backend', 'vlm'],
    EXIT_USAGE,
    /--backend must be one of .*\(got 'vlm'\)\. Did you mean vllm\?/,
  ],
  [['bench', '--dataset-name', 'sharegtp'], EXIT_USAGE, /Did you mean sharegpt\?/],
  [['bench', '--engine', 'closed'], EXIT_USAGE, /Did you mean closed-loop\?/],
  [
    ['bench', '--engine', 'closed-loop', '--base-url', 'https://127.0.0.1:1', '--model', 'm'],
    EXIT_USAGE,
    /--engine closed-loop cannot verify an https server's TLS certificate \(autocannon never does\)/,
  ],
  [
    ['bench', '--bakend', 'openai'],
    EXIT_USAGE,
    /unknown option --bakend for 'bench'\. Did you mean --backend\?/,
  ],
  [['bench', '--smoke=yes'], EXIT_USAGE, /--smoke is a switch and takes no value \(got 'yes'\)/],
  [['bench', '--dataset-name', 'jsonl'], EXIT_USAGE, /--dataset-name jsonl needs --dataset-path FILE/],
  [['bench', '--extra-body', '{'], EXIT_USAGE, /--extra-body must be a JSON object/],
  [['bench', '--header', 'no-separator'], EXIT_USAGE, /--header 'no-separator' should be NAME=VALUE/],
  [['bench', '--ramp-up-strategy', 'linear'], EXIT_USAGE, /needs --ramp-up-start-rps and --ramp-up-end-rps/],
  [['bench', 'stray'], EXIT_USAGE, /unexpected argument 'stray'/],
  [['bench', '--percentile-metrics', 'ttfb'], EXIT_USAGE, /unknown metric 'ttfb'.*Did you mean ttft\?/],
  [['bench', '--metric-percentiles', '101'], EXIT_USAGE, /'101' is not a number between 0 and 100/],
  [['bench', '--goodput', 'ttft:soon'], EXIT_USAGE, /--goodput: 'ttft:soon'/],
  [['bench', '--metadata', 'x'], EXIT_USAGE, /--metadata: 'x' should be KEY=VALUE/],
  [['bench', '--base-url', 'not-a-url'], EXIT_USAGE, /--base-url 'not-a-url' is not an http\(s\) URL/],
  [['sweep', '--rates', 'a,b'], EXIT_USAGE, /--rates takes positive numbers/],
  [
    ['bench', '--threshold', 'ttfp_p99 < 500ms'],
    EXIT_USAGE,
    /--threshold 'ttfp_p99 < 500ms': unknown metric 'ttfp_p99'.*Did you mean .*ttft_p99/,
  ],
  [['bench', '--threshold', 'ttft_p99 500ms'], EXIT_USAGE, /write METRIC OP VALUE/],
  [['bench', '--threshold', 'ttft_p99 == 5'], EXIT_USAGE, /'==' is not a comparison: use <, <=, > or >=/],
  [['bench', '--threshold', 'ttft_p99 < soon'], EXIT_USAGE, /'soon': ttft_p99 is a time/],
  [['bench', '--threshold', 'success_rate >= 2'], EXIT_USAGE, /success_rate is a share between 0 and 1/],
  [['bench', '--threshold', 'output_throughput >= 2s'], EXIT_USAGE, /output_throughput is in tok\/s/],
  [['bench', '--threshold', 'request_goodput >= 1'], EXIT_USAGE, /needs --goodput SLOs/],
  [['bench', '--duration', 'soon'], EXIT_USAGE, /--duration must be a time above 0/],
  [
    ['bench', '--duration', '10s', '--engine', 'closed-loop'],
    EXIT_USAGE,
    /--duration needs the open-loop engine/,
  ],
  [['bench', '--duration', '10s'], EXIT_USAGE, /--request-rate inf needs --num-prompts N/],
  [['sweep', '--threshold', 'ttft_p99 < 1s'], EXIT_USAGE, /unknown option --threshold for 'sweep'/],
  [['doctor', '--backend', 'vlm'], EXIT_USAGE, /Did you mean vllm\?/],
  [['doctor', '--backend', 'anthropic-messages'], EXIT_USAGE, /doctor checks OpenAI chat and completions/],
  [['compare', 'one.json'], EXIT_USAGE, /give at least two result files/],
  [[...bench, '--config', unknownKey], EXIT_USAGE, /unknown key "num_promts"\. Did you mean "num_prompts"/],
  [[...bench, '--config', badBackend], EXIT_USAGE, /"backend" must be one of .*Did you mean vllm\?/],
  [
    [...bench, '--config', withByteOrderMark],
    EXIT_USAGE,
    /bom\.json: unknown key "num_promts"\. Did you mean "num_prompts"/,
  ],
  [
    [...bench, '--per-chunk-usage', '--no-stream-usage'],
    EXIT_USAGE,
    /--per-chunk-usage needs the usage chunk that --no-stream-usage turns off/,
  ],
  [
    [...bench, '--per-chunk-usage', '--backend', 'openai-responses'],
    EXIT_USAGE,
    /--per-chunk-usage .* only the OpenAI chat and completions APIs have \(this backend speaks openai-responses\)/,
  ],
];

const runRows: Row[] = [
  [[...bench, '--dataset-path', missing], EXIT_RUN_FAILED, /no such file; a settings file goes to --config$/],
  [
    [...bench, '--dataset-path', notArray],
    EXIT_RUN_FAILED,
    /is not a ShareGPT-format file .* found "\{" at byte 0/,
  ],
  [
    [...bench, '--dataset-path', empty],
    EXIT_RUN_FAILED,
    /empty\.json is empty: expected a ShareGPT-format file/,
  ],
  [[...bench, '--dataset-path', emptyArray], EXIT_RUN_FAILED, /the array is empty/],
  [
    [...bench, '--dataset-path', noConversation],
    EXIT_RUN_FAILED,
    /none of its 1 entry is a well-formed conversation/,
  ],
  [[...bench, '--dataset-path', oneTurn], EXIT_RUN_FAILED, /has the two turns a request needs/],
  [[...bench, '--dataset-path', dir], EXIT_RUN_FAILED, /is a folder: name the file in it/],
  [
    [...bench, '--dataset-name', 'jsonl', '--dataset-path', blankLines],
    EXIT_RUN_FAILED,
    /has only blank lines/,
  ],
  [
    [...bench, '--dataset-name', 'jsonl', '--dataset-path', notPrompts],
    EXIT_RUN_FAILED,
    /has no usable line/,
  ],
  [[...bench, '--dataset-name', 'records', '--dataset-path', missing], EXIT_RUN_FAILED, /no such file/],
  [
    [...bench, '--dataset-name', 'prefix_repetition', '--num-prompts', '5'],
    EXIT_RUN_FAILED,
    /prefix_repetition: --num-prompts \(5\) must be at least --prefix-repetition-num-prefixes \(10\)$/,
  ],
  [
    [
      ...bench,
      '--dataset-name',
      'prefix_repetition',
      '--prefix-repetition-prefix-len',
      '0',
      '--prefix-repetition-suffix-len',
      '0',
    ],
    EXIT_RUN_FAILED,
    /are both 0: every prompt would be empty$/,
  ],
  [[...bench, '--gateway-records', missing], EXIT_RUN_FAILED, /--gateway-records .*: no such file/],
  [[...bench, '--tokenizer', missing], EXIT_RUN_FAILED, /--tokenizer .*: no such file or folder/],
  [[...bench, '--tokenizer', noTokenizer], EXIT_RUN_FAILED, /the folder has no tokenizer\.json/],
  [[...bench, '--result-dir', aFile, '--save-result'], EXIT_RUN_FAILED, /a-file is a file, not a folder/],
  [
    [...bench, '--records-file', join(aFile, 'r.jsonl')],
    EXIT_RUN_FAILED,
    /--records-file .* is a file, not a folder/,
  ],
  [[...bench, '--html', join(aFile, 'r.html')], EXIT_RUN_FAILED, /--html .* is a file, not a folder/],
  [['sweep', '--rates', '1', '--result-dir', join(aFile, 'x')], EXIT_RUN_FAILED, /is a file, not a folder/],
  [[...bench, '--config', missing], EXIT_RUN_FAILED, /--config .*bench_config\.json: no such file$/],
  [[...bench, '--config', badJson], EXIT_RUN_FAILED, /--config .* is not valid JSON/],
  [
    [...bench, '--api-key-env', 'TOKENMETER_TEST_UNSET_KEY'],
    EXIT_RUN_FAILED,
    /TOKENMETER_TEST_UNSET_KEY is not set/,
  ],
  [['sim', '--config', missing], EXIT_RUN_FAILED, /cannot read simulator config .*: no such file$/],
  [
    ['sim', '--num-speculative-tokens', '3', '--tokens-per-chunk', '2'],
    EXIT_RUN_FAILED,
    /timing\.speculativeTokens needs timing\.tokensPerChunk 1/,
  ],
  [['compare', missing, missing], EXIT_RUN_FAILED, /no such file/],
];

// Permissions do not bind root, so these rows only mean something for another user (CI runs as one).
const asRoot = process.getuid?.() === 0;
const permissionRows: Row[] = [
  [[...bench, '--dataset-path', unreadable], EXIT_RUN_FAILED, /unreadable\.json: permission denied/],
  [
    [...bench, '--result-dir', unwritable],
    EXIT_RUN_FAILED,
    /this user cannot write in .*unwritable \(EACCES\)/,
  ],
];

/** Runs the rows a few at a time (each is a node process; the machine may have two cores). */
async function check(rows: readonly Row[]): Promise<void> {
  const env = { ...process.env, OPENAI_API_KEY: '' };
  for (let i = 0; i < rows.length; i += 4) {
    await Promise.all(
      rows.slice(i, i + 4).map(async ([argv, exit, line]) => {
        const what = argv.join(' ');
        const res = await runCli([...argv], env);
        assert.doesNotMatch(res.stderr, /\n\s+at |node:internal|triggerUncaught/, `${what}: no stack trace`);
        assert.equal(res.code, exit, `${what}: exit ${exit}; stderr: ${res.stderr}`);
        const lines = res.stderr.trimEnd().split('\n');
        assert.equal(lines.length, 1, `${what}: stderr is one line; got: ${res.stderr}`);
        assert.match(lines[0] as string, /^tokenmeter( [a-z-]+)?: /, `${what}: says who is speaking`);
        assert.match(lines[0] as string, line, what);
        assert.equal(res.stdout, '', `${what}: nothing on stdout`);
      }),
    );
  }
}

test('usage mistakes: one line in our words, exit 2', async () => {
  await check(usageRows);
});

test('files and folders a run cannot use: one line naming the flag, exit 1, before anything is sent', async () => {
  await check(runRows);
});

test('unreadable dataset, unwritable result folder: one line, exit 1', {
  skip: asRoot ? 'running as root, whom file permissions do not stop' : false,
}, async () => {
  await check(permissionRows);
});

test('doctor takes the backend names bench takes', async () => {
  // Unreachable, so the checklist fails (exit 1), but --backend vllm is not refused as a usage mistake.
  const res = await runCli([
    'doctor',
    '--backend',
    'vllm',
    '--base-url',
    'http://127.0.0.1:1',
    '--timeout-ms',
    '500',
  ]);
  assert.equal(res.code, EXIT_RUN_FAILED, res.stderr);
  assert.match(res.stdout, /\(backend vllm\)/);
});

test.after(() => {
  chmodSync(unreadable, 0o600);
  rmSync(dir, { recursive: true, force: true });
});
