// `--workers N|auto`: a whole number of processes, or one per CPU this process may use.
import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { test } from 'node:test';
import { workerCount } from '../../src/gateway/cluster/worker-count.js';
import { UsageError } from '../../src/shared/usage-error.js';

test('workers: default 1, a number, or auto; anything else is a usage error', () => {
  assert.equal(workerCount(undefined), 1);
  assert.equal(workerCount('3'), 3);
  assert.equal(workerCount(2), 2);
  assert.equal(workerCount('auto'), availableParallelism());
  for (const bad of ['0', '-1', '1.5', 'many', '']) assert.throws(() => workerCount(bad), UsageError);
});
