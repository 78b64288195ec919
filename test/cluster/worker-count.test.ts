// `--workers N|auto`: a whole number of processes, or one per CPU this process may use.
import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { test } from 'node:test';
import { validateConfig } from '../../src/gateway/config/config-validate.js';
import { workerCount } from '../../src/gateway/config/serve-config.js';
import { UsageError } from '../../src/shared/user-facing-error.js';

test('workers: default 1, a number, or auto; anything else is a usage error', () => {
  assert.equal(workerCount(undefined), 1);
  assert.equal(workerCount('3'), 3);
  assert.equal(workerCount(2), 2);
  assert.equal(workerCount('auto'), availableParallelism());
  for (const bad of ['0', '-1', '1.5', 'many', '']) assert.throws(() => workerCount(bad), UsageError);
});

test("the config file's workers: a whole number or 'auto', named in the error otherwise", () => {
  const upstreams = [{ name: 'u', baseUrl: 'http://127.0.0.1:8000/v1', keyless: true }];
  assert.equal(validateConfig({ upstreams, workers: 'auto' }).workers, 'auto');
  assert.equal(validateConfig({ upstreams, workers: 4 }).workers, 4);
  for (const workers of [0, 1.5, '2', 'all']) {
    assert.throws(() => validateConfig({ upstreams, workers }), /workers must be a whole number/);
  }
});
