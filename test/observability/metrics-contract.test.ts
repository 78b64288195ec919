// The metrics contract: after traffic that reaches every outcome kind the test can cause cheaply, the gateway's
// and the simulator's /metrics pages match dashboards/metrics-contract.json (names, types, units, label names,
// enumerated label values, buckets), and `promtool check metrics` has nothing to say about either page.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { MIRROR_SKIP_REASONS } from '../../src/gateway/exchange/mirrors.js';
import { REQUEST_ROLES } from '../../src/gateway/records/record.js';
import { PATH_FIX_HINTS } from '../../src/gateway/request-path/client-path.js';
import { CLIENT_ERROR_REASONS } from '../../src/gateway/serve/client-errors.js';
import { OUTCOMES } from '../../src/measure/outcome.js';
import { LOST_REASONS } from '../../src/shared/records-writer.js';
import { CONTRACT_PATH, contractDifferences, loadContract, namingProblems } from './helpers/contract.js';
import { parseExposition } from './helpers/exposition.js';
import { requireTool } from './helpers/external-tool.js';
import { runTool, unexpectedLintFindings } from './helpers/promtool.js';
import { driveRound, type Stack, scrape, startStack } from './helpers/stack.js';

let stack: Stack;
let gatewayPage: string;
let simPage: string;

before(async () => {
  stack = await startStack();
  await driveRound(stack);
  gatewayPage = await scrape(stack.gateway.url);
  simPage = await scrape(stack.sim.url);
});
after(async () => {
  await stack.close();
});

test('the contract file follows Prometheus naming (base units, _total on counters, buckets listed)', () => {
  const contract = loadContract();
  assert.deepEqual(namingProblems(contract.gateway), []);
  assert.deepEqual(namingProblems(contract.simulator), []);
});

test("the contract's enumerated labels are the code's: every outcome, path fix, records-lost reason, role, mirror skip reason and client error reason", () => {
  const { gateway } = loadContract();
  assert.deepEqual(gateway['tokenmeter_requests_total']?.labels['outcome'], OUTCOMES);
  assert.deepEqual(
    [...(gateway['tokenmeter_path_fixes_total']?.labels['fix'] ?? [])].sort(),
    Object.keys(PATH_FIX_HINTS).sort(),
  );
  assert.deepEqual(gateway['tokenmeter_records_lost_total']?.labels['reason'], LOST_REASONS);
  for (const family of [
    'tokenmeter_requests_total',
    'tokenmeter_time_to_first_token_seconds',
    'tokenmeter_tokens_total',
  ]) {
    assert.deepEqual(gateway[family]?.labels['role'], REQUEST_ROLES, family);
  }
  assert.deepEqual(gateway['tokenmeter_mirror_skipped_total']?.labels['reason'], MIRROR_SKIP_REASONS);
  assert.deepEqual(gateway['tokenmeter_client_errors_total']?.labels['reason'], CLIENT_ERROR_REASONS);
});

test(`the gateway's /metrics matches ${CONTRACT_PATH}`, () => {
  const page = parseExposition(gatewayPage);
  assert.deepEqual(contractDifferences(loadContract().gateway, page), []);
  // The traffic reached what the dashboard's failure panels need: an ok and an http_error, a path fix.
  const outcomes = page.get('tokenmeter_requests_total')?.labels.get('outcome');
  assert.deepEqual([...(outcomes ?? [])].sort(), ['http_error', 'ok']);
  assert.deepEqual([...(page.get('tokenmeter_path_fixes_total')?.labels.get('fix') ?? [])], ['missing_v1']);
});

test(`the simulator's /metrics matches ${CONTRACT_PATH}`, () => {
  assert.deepEqual(contractDifferences(loadContract().simulator, parseExposition(simPage)), []);
});

test('a renamed metric, a new label or changed buckets are caught', () => {
  const contract = loadContract().gateway;
  const renamed = gatewayPage.replaceAll('tokenmeter_records_lost_total', 'tokenmeter_records_dropped_total');
  assert.match(contractDifferences(contract, parseExposition(renamed)).join('\n'), /not in .*contract/);
  const relabelled = gatewayPage.replace('{fix="missing_v1"}', '{fix="missing_v1",client="x"}');
  assert.match(
    contractDifferences(contract, parseExposition(relabelled)).join('\n'),
    /labels \[client, fix\]/,
  );
  const rebucketed = gatewayPage.replaceAll('le="1000"', 'le="2000"');
  assert.match(contractDifferences(contract, parseExposition(rebucketed)).join('\n'), /buckets/);
});

test('promtool check metrics: nothing to complain about on either page', async (t) => {
  const promtool = requireTool(t, 'promtool');
  if (promtool === undefined) return;
  const gateway = await runTool(promtool, ['check', 'metrics'], gatewayPage);
  assert.equal(gateway.code, 0, gateway.output);
  assert.equal(gateway.output.trim(), '');
  // Only vLLM's own colon names are flagged on the simulator's page, and they are kept on purpose.
  const sim = await runTool(promtool, ['check', 'metrics'], simPage);
  assert.deepEqual(unexpectedLintFindings(sim.output), []);
  process.stdout.write(
    `# promtool check metrics: gateway clean; simulator: ${sim.output.trim().split('\n').length} vllm: colon-name findings (vLLM's own names)\n`,
  );
});
