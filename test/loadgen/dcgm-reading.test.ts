// The DCGM exporter's page read per GPU: the fixture rendered in dcgm-exporter 4.5.3-4.8.2's format, its
// successor's lower-case `hostname`, MIG instances and pages that are not DCGM's.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { readDcgmPage } from '../../loadgen/gpu-metrics/dcgm-reading.js';
import { fakeGpu, renderDcgmPage } from './helpers/dcgm-page.js';

const FIXTURE = new URL('../../../test/loadgen/fixtures/dcgm-exporter-4.5.3/two-gpus.prom', import.meta.url);

test("the fixture's two GPUs: power, energy counter, utilisation and memory (used + free + reserved) each", () => {
  const gpus = readDcgmPage(readFileSync(FIXTURE, 'utf8'));
  assert.deepEqual(gpus, [
    {
      key: 'GPU-00000000-1111-2222-3333-444455556666',
      index: '0',
      uuid: 'GPU-00000000-1111-2222-3333-444455556666',
      model: 'NVIDIA H100 80GB HBM3',
      host: 'gpu-node-7',
      powerW: 312.5,
      energyMj: 48213077123,
      utilPct: 87,
      memUsedMiB: 71234,
      memTotalMiB: 71234 + 9325 + 512,
    },
    {
      key: 'GPU-11111111-1111-2222-3333-444455556666',
      index: '1',
      uuid: 'GPU-11111111-1111-2222-3333-444455556666',
      model: 'NVIDIA H100 80GB HBM3',
      host: 'gpu-node-7',
      powerW: 98.25,
      energyMj: 40000000000,
      utilPct: 3,
      memUsedMiB: 1024,
      memTotalMiB: 1024 + 79535 + 512,
    },
  ]);
});

test("the successor's lower-case hostname label reads alike", () => {
  const [gpu] = readDcgmPage(renderDcgmPage([fakeGpu(0)], 'node-b', 'hostname')) ?? [];
  assert.equal(gpu?.host, 'node-b');
});

test("a MIG instance's lines (GPU_I_ID) repeat its GPU's figures and are not counted again", () => {
  const page = renderDcgmPage([fakeGpu(0, { powerW: 200 })]);
  const mig = page
    .split('\n')
    .filter((line) => line.startsWith('DCGM_FI_DEV_POWER_USAGE{'))
    .map((line) => line.replace(/\} \S+$/, ',GPU_I_PROFILE="1g.10gb",GPU_I_ID="3"} 50'));
  const gpus = readDcgmPage(`${page}${mig.join('\n')}\n`);
  assert.equal(gpus?.length, 1);
  assert.equal(gpus?.[0]?.powerW, 200);
});

test('a page without DCGM fields is none', () => {
  assert.equal(
    readDcgmPage('# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{engine="0"} 3\n'),
    null,
  );
  assert.equal(readDcgmPage(''), null);
});
