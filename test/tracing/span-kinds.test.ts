// The span kinds the gateway, bench and simulator give their spans are @opentelemetry/api's, and the gateway's and
// bench's span makers do not load the API package (bench loads nothing else of it; serve does, through prom-client).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { SpanKind } from '@opentelemetry/api';
import { CLIENT_SPAN_KIND, SERVER_SPAN_KIND } from '../../src/tracing/span-kinds.js';

test("the span kinds are @opentelemetry/api's SpanKind values", () => {
  assert.equal(SERVER_SPAN_KIND, SpanKind.SERVER);
  assert.equal(CLIENT_SPAN_KIND, SpanKind.CLIENT);
});

test("importing the gateway's and bench's span makers loads no @opentelemetry/api module", async () => {
  const modules = ['../../src/gateway/gateway-span.js', '../../loadgen/bench/client-spans.js'];
  const urls = modules.map((m) => new URL(m, import.meta.url).href);
  // A fresh process: this test file itself imports the API. The package is CommonJS, so whatever loads it is in
  // the CommonJS module cache.
  const script = `
    for (const url of ${JSON.stringify(urls)}) await import(url);
    const { createRequire } = await import('node:module');
    const cache = createRequire(import.meta.url).cache;
    console.log(JSON.stringify(Object.keys(cache).filter((path) => path.includes('@opentelemetry'))));
  `;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
    cwd: fileURLToPath(new URL('.', import.meta.url)),
    timeout: 20_000,
  });
  assert.deepEqual(JSON.parse(stdout), []);
});
