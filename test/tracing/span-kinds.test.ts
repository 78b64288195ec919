// The span kinds the gateway, bench and simulator give their spans are @opentelemetry/api's, and the gateway's and
// bench's span makers do not load the API package (bench loads nothing else of it; serve does, through prom-client).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SpanKind } from '@opentelemetry/api';
import { CLIENT_SPAN_KIND, SERVER_SPAN_KIND } from '../../src/tracing/genai-semconv.js';
import { commonJsModulesLoaded } from '../helpers/commonjs-modules-loaded.js';

test("the span kinds are @opentelemetry/api's SpanKind values", () => {
  assert.equal(SERVER_SPAN_KIND, SpanKind.SERVER);
  assert.equal(CLIENT_SPAN_KIND, SpanKind.CLIENT);
});

test("importing the gateway's and bench's span makers loads no @opentelemetry/api module", async () => {
  const modules = ['../../src/gateway/spans/gateway-span.js', '../../loadgen/bench/client-spans.js'];
  const urls = modules.map((m) => new URL(m, import.meta.url).href);
  const loaded = await commonJsModulesLoaded(`for (const url of ${JSON.stringify(urls)}) await import(url);`);
  assert.deepEqual(
    loaded.filter((path) => path.includes('@opentelemetry')),
    [],
  );
});
