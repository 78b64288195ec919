// Shard and start flags a run cannot honour are refused through the real CLI before anything is sent: one line
// on stderr that says what is wrong, exit status 2. No server is needed (none is contacted).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EXIT_USAGE } from '../../src/cli/command.js';
import { bench, cleanEnv } from '../loadgen/helpers/bench-cli.js';

const TARGET = ['--base-url', 'http://127.0.0.1:9', '--model', 'm', '--num-prompts', '3'];

const cases: Array<{ name: string; args: string[]; env?: Record<string, string>; says: RegExp }> = [
  {
    name: '--shard 3/3',
    args: ['--shard', '3/3'],
    says: /shard index 3 is out of range; indexes run from 0 to 2/,
  },
  { name: '--shard 0/0', args: ['--shard', '0/0'], says: /the shard count must be at least 1/ },
  { name: '--shard 1', args: ['--shard', '1'], says: /--shard must look like I\/N/ },
  {
    name: '--shard with --shard-count',
    args: ['--shard', '0/3', '--shard-count', '3'],
    env: { JOB_COMPLETION_INDEX: '0' },
    says: /give --shard I\/N or --shard-count N .*not both/,
  },
  {
    name: '--shard-count without JOB_COMPLETION_INDEX',
    args: ['--shard-count', '3'],
    says: /--shard-count needs \$JOB_COMPLETION_INDEX/,
  },
  {
    name: 'JOB_COMPLETION_INDEX beyond --shard-count',
    args: ['--shard-count', '2'],
    env: { JOB_COMPLETION_INDEX: '2' },
    says: /shard index 2 is out of range/,
  },
  {
    name: '--start-at in the past',
    args: ['--shard', '0/2', '--start-at', '2020-01-01T00:00:00Z'],
    says: /--start-at 2020-01-01T00:00:00Z is in the past/,
  },
  { name: '--start-at not a time', args: ['--start-at', 'soon'], says: /--start-at must be an ISO time/ },
  {
    name: '--max-concurrency below the shard count',
    args: ['--shard', '0/3', '--max-concurrency', '2'],
    says: /--max-concurrency 2 is split across 3 shards: give at least 3/,
  },
  {
    name: '--workers with --shard',
    args: ['--workers', '2', '--shard', '0/2'],
    says: /--workers splits this machine's run/,
  },
];

for (const c of cases) {
  test(`refused in one line: ${c.name}`, async () => {
    const cli = await bench([...TARGET, ...c.args], cleanEnv(c.env));
    assert.equal(cli.code, EXIT_USAGE, cli.stderr);
    assert.match(cli.stderr, c.says);
    assert.equal(cli.stderr.trim().split('\n').length, 1, cli.stderr);
    assert.equal(cli.stdout, '');
  });
}
