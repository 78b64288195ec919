// tokenmeter report through the CLI: a run, a sweep or a comparison page by its input; its mistakes' statuses.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { runCli } from '../helpers/run-cli.js';
import { hostedRun, localRun } from './helpers/report-fixtures.js';

let folder = '';
before(async () => {
  folder = await mkdtemp(join(tmpdir(), 'tokenmeter-report-cli-'));
  await writeFile(join(folder, 'a.json'), JSON.stringify(localRun().json));
  await writeFile(join(folder, 'b.json'), JSON.stringify(hostedRun().json));
  await writeFile(
    join(folder, 'sweep.json'),
    JSON.stringify({ levels: [{ rate: 1, achieved_rate: 1 }], knee: 1 }),
  );
  await writeFile(join(folder, 'other.json'), JSON.stringify({ hello: 'world' }));
});
after(() => rm(folder, { recursive: true, force: true }));

test('report writes a run, a sweep and a comparison page depending on its input', async () => {
  const cases: Array<[string[], RegExp]> = [
    [['a.json'], /<title>tokenmeter run report: local-vllm<\/title>/],
    [['sweep.json'], /<title>tokenmeter sweep report<\/title>/],
    [['a.json', 'b.json'], /<title>tokenmeter comparison: local-vllm vs hosted gateway<\/title>/],
  ];
  for (const [inputs, title] of cases) {
    const out = join(folder, 'out', 'page.html');
    const result = await runCli(['report', ...inputs.map((f) => join(folder, f)), '-o', out]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, `Wrote ${out}\n`);
    assert.match(await readFile(out, 'utf8'), title);
  }
});

test('report: usage mistakes exit 2, unreadable or foreign files exit 1 with the file named', async () => {
  const noOutput = await runCli(['report', join(folder, 'a.json')]);
  assert.equal(noOutput.code, 2);
  assert.match(noOutput.stderr, /-o\/--output FILE is required/);
  const foreign = await runCli(['report', join(folder, 'other.json'), '-o', join(folder, 'x.html')]);
  assert.equal(foreign.code, 1);
  assert.match(foreign.stderr, /other\.json' is neither a benchmark result nor a sweep summary/);
  assert.doesNotMatch(foreign.stderr, /at \w+ \(/, 'no stack trace');
});
