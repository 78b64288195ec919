// promtool accepts the shipped scrape config, the config the real-Prometheus test derives from it, and every
// rules file; and this project's rules reader sees as many rules as promtool does (so no rule escapes the
// real-Prometheus test).
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { requireTool } from './helpers/external-tool.js';
import { rulesDirExpressions } from './helpers/promql-sources.js';
import { runTool } from './helpers/promtool.js';
import { repoPath } from './helpers/repo-paths.js';
import { testScrapeConfig } from './helpers/scrape-config.js';

const CONFIG = repoPath('dashboards/prometheus/prometheus.yml');
const RULES = repoPath('dashboards/prometheus/rules');

test('promtool check config: the shipped prometheus.yml and the test config derived from it', async (t) => {
  const promtool = requireTool(t, 'promtool');
  if (promtool === undefined) return;
  const shipped = await runTool(promtool, ['check', 'config', CONFIG]);
  assert.equal(shipped.code, 0, shipped.output);
  const dir = mkdtempSync(join(tmpdir(), 'tokenmeter-promtool-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const derived = join(dir, 'prometheus.yml');
  writeFileSync(
    derived,
    testScrapeConfig(readFileSync(CONFIG, 'utf8'), {
      gateways: ['127.0.0.1:18080', '127.0.0.1:18081'],
      sims: ['127.0.0.1:18000', '127.0.0.1:18001'],
      rulesDir: RULES,
    }),
  );
  const result = await runTool(promtool, ['check', 'config', derived]);
  assert.equal(result.code, 0, result.output);
  // The derived config loads the rules for real: promtool checks them as part of the config.
  assert.match(result.output, /SUCCESS: 2 rule files found/);
  process.stdout.write(
    `# promtool check config:\n${`${shipped.output}${result.output}`.replace(/^/gm, '#   ')}\n`,
  );
});

test('promtool check rules: every rules file, and the rules reader finds every rule', async (t) => {
  const promtool = requireTool(t, 'promtool');
  if (promtool === undefined) return;
  const files = readdirSync(RULES).filter((f) => f.endsWith('.yml'));
  assert.ok(files.length >= 2);
  const result = await runTool(promtool, ['check', 'rules', ...files.map((f) => join(RULES, f))]);
  assert.equal(result.code, 0, result.output);
  process.stdout.write(`# promtool check rules:\n${result.output.replace(/^/gm, '#   ')}\n`);
  const promtoolCount = [...result.output.matchAll(/SUCCESS: (\d+) rules found/g)].reduce(
    (sum, m) => sum + Number(m[1]),
    0,
  );
  assert.equal(rulesDirExpressions(RULES).length, promtoolCount);
});

test('every alert has a severity, a summary and a runbook', () => {
  for (const file of readdirSync(RULES).filter((f) => f.endsWith('.yml'))) {
    const text = readFileSync(join(RULES, file), 'utf8');
    for (const block of text.split(/\n\s*- (?=alert:|record:)/).filter((b) => b.startsWith('alert:'))) {
      const name = block.split('\n')[0];
      for (const key of ['severity:', 'summary:', 'description:', 'runbook:', 'for:']) {
        assert.ok(block.includes(key), `${file} ${name} lacks ${key}`);
      }
    }
  }
});
