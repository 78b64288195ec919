// Mirror copies in flight when the gateway closes: drained within shutdownGraceMs (recorded as they ended), or
// cut when it runs out (recorded as truncated, with the reason). Either way every request, primary and copy, has
// its one record before the gateway reports itself closed.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { GatewayShutdown } from '../../src/gateway/serve/shutdown.js';
import { startGateway } from '../gateway/helpers/gateway.js';
import type { TestUpstream } from '../gateway/helpers/upstream.js';
import { mirrorConfig, STREAMED_CHAT, startHoldingMirror, startPrimary } from './mirror-upstreams.js';

let primary: TestUpstream;

before(async () => {
  primary = await startPrimary();
});
after(async () => {
  await primary.close();
});

async function chat(gatewayUrl: string): Promise<void> {
  const response = await request(`${gatewayUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: STREAMED_CHAT,
  });
  assert.equal(response.statusCode, 200);
  await response.body.text();
}

test('a copy that ends within the grace period is drained and recorded as it ended', async () => {
  const mirror = await startHoldingMirror();
  const gateway = await startGateway(
    mirrorConfig(primary.url, mirror.url, { fraction: 1 }, { shutdownGraceMs: 5_000 }),
  );
  try {
    await chat(gateway.url);
    await mirror.holding(1);
    const closing = new GatewayShutdown(gateway).begin();
    // The client's request is over: only the copy keeps the gateway open.
    await gateway.recordsAfter(1);
    mirror.release();
    await closing;
    assert.equal(gateway.records.length, 2);
    const copy = gateway.records.find((r) => r.role === 'mirror');
    assert.equal(copy?.outcome, 'ok');
  } finally {
    await mirror.close();
  }
});

test('a copy still running when the grace period runs out is cut and recorded as truncated', async () => {
  const mirror = await startHoldingMirror();
  const gateway = await startGateway(
    mirrorConfig(primary.url, mirror.url, { fraction: 1 }, { shutdownGraceMs: 200 }),
  );
  try {
    await chat(gateway.url);
    await mirror.holding(1);
    await new GatewayShutdown(gateway).begin();
    assert.equal(gateway.records.length, 2, 'one record per request, the copy included, before closed');
    const copy = gateway.records.find((r) => r.role === 'mirror');
    assert.equal(copy?.outcome, 'truncated');
    assert.match(copy?.error ?? '', /shutdownGraceMs/);
    assert.equal(copy?.pairId, gateway.records.find((r) => r.role === 'primary')?.requestId);
  } finally {
    await mirror.close();
  }
});

test('closing the gateway without a shutdown also waits for copies, then cuts them', async () => {
  const mirror = await startHoldingMirror();
  const gateway = await startGateway(
    mirrorConfig(primary.url, mirror.url, { fraction: 1 }, { shutdownGraceMs: 100 }),
  );
  try {
    await chat(gateway.url);
    await mirror.holding(1);
    await gateway.close();
    assert.equal(gateway.records.length, 2);
    const copy = gateway.records.find((r) => r.role === 'mirror');
    assert.equal(copy?.outcome, 'truncated');
    assert.match(copy?.error ?? '', /closed while the mirror copy was still running/);
  } finally {
    await mirror.close();
  }
});
