// tokenmeter compare through the CLI: the table, --json, --html, and the exit statuses of its mistakes.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Comparison } from '../../loadgen/compare/comparison.js';
import { runCli } from '../helpers/run-cli.js';
import { okRecord, resultOf } from '../report/helpers/synthetic-run.js';

let folder = '';
const file = (name: string): string => join(folder, name);

before(async () => {
  folder = await mkdtemp(join(tmpdir(), 'tokenmeter-compare-cli-'));
  const run = (ttft: number) => resultOf([okRecord(0, 0, ttft, [10, 10]), okRecord(1, 100, ttft, [10])]);
  await writeFile(file('before.json'), JSON.stringify(run(200)));
  await writeFile(file('after.json'), JSON.stringify(run(150)));
  await writeFile(file('broken.json'), '{"completed": 3,');
  await writeFile(file('config.json'), JSON.stringify({ backend: 'vllm', model: 'x' }));
  await writeFile(file('list.json'), '[1, 2]');
});
after(() => rm(folder, { recursive: true, force: true }));

test('compare prints the table and exits 0; --json gives the same figures as data', async () => {
  const text = await runCli(['compare', file('before.json'), file('after.json')]);
  assert.equal(text.code, 0, text.stderr);
  assert.match(
    text.stdout,
    /\nMean TTFT \(ms\)\s+200\.00\s+150\.00\s+-50\.00 \(-25\.0%\)\s+no interval: only 2 requests\s+untested\n/,
  );

  const json = await runCli(['compare', '--json', file('before.json'), file('after.json')]);
  assert.equal(json.code, 0, json.stderr);
  const comparison = JSON.parse(json.stdout) as Comparison;
  const ttft = comparison.rows.find((row) => row.key === 'mean_ttft_ms');
  assert.deepEqual(ttft?.values, [200, 150]);
  assert.deepEqual(ttft?.deltas, [
    null,
    {
      absolute: -50,
      percent: -25,
      verdict: 'better',
      interval: null,
      significant: null,
      noInterval: 'only 2 requests',
    },
  ]);
  assert.equal(ttft?.decision, 'untested');
  assert.equal(ttft?.better, 'lower');
  assert.deepEqual(
    comparison.runs.map((r) => r.path),
    [file('before.json'), file('after.json')],
  );
});

test('compare --html writes the overlay report beside the table', async () => {
  const out = file('cmp.html');
  const result = await runCli(['compare', file('before.json'), file('after.json'), '--html', out]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, new RegExp(`Wrote ${out.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\n$`));
  assert.match(await readFile(out, 'utf8'), /<title>tokenmeter comparison: before vs after<\/title>/);
});

test('compare: fewer than two files is a usage error (2); unreadable or non-result files fail (1) by name', async () => {
  const one = await runCli(['compare', file('before.json')]);
  assert.equal(one.code, 2);
  assert.match(one.stderr, /give at least two result files/);

  const cases: Array<[string, RegExp]> = [
    [
      'missing.json',
      /cannot read a benchmark result \(JSON from --save-result\) '.*missing\.json': no such file/,
    ],
    ['broken.json', /'.*broken\.json' is not valid JSON \(.+\); expected a benchmark result/],
    [
      'config.json',
      /'.*config\.json' is not a benchmark result: it has no numeric completed, duration, request_throughput, output_throughput/,
    ],
    ['list.json', /'.*list\.json' is not a benchmark result: expected a JSON object/],
    ['', /cannot read .*: it is a folder, not a file/],
  ];
  for (const [name, message] of cases) {
    const result = await runCli(['compare', file('before.json'), name === '' ? folder : file(name)]);
    assert.equal(result.code, 1, `${name}: ${result.stderr}`);
    assert.match(result.stderr, message);
    assert.equal(result.stdout, '', 'nothing printed on failure');
  }
});
