// The hop-by-hop filter itself (src/gateway/exchange/hop-by-hop.ts): what it keeps and that it never changes its
// input. That no hop-by-hop header crosses the gateway, in either direction, is the fault matrix's to show
// (test/reliability/client-faults.test.ts), header by header, through a real gateway.
import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { test } from 'node:test';
import { forwardableRequestHeaders } from '../../src/gateway/exchange/hop-by-hop.js';

test('forwardableRequestHeaders returns a fresh object without hop-by-hop headers, credentials, Expect or trace context', () => {
  const client: IncomingHttpHeaders = {
    host: 'gateway',
    connection: 'keep-alive, X-Hop-One',
    'x-hop-one': '1',
    'keep-alive': 'timeout=5',
    'transfer-encoding': 'chunked',
    'content-length': '12',
    expect: '100-continue',
    authorization: 'Bearer client-key',
    'x-api-key': 'client-key',
    'api-key': 'client-key',
    'x-goog-api-key': 'client-key',
    cookie: 'session=1',
    'proxy-authenticate': 'Basic',
    'content-type': 'application/json',
    'user-agent': 'test',
    'x-trace': ['a', 'b'],
    // The proxy writes its own (trace-context.test.ts checks what the upstream receives).
    traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
    tracestate: 'rojo=00f067aa0ba902b7',
  };
  const before = { ...client };
  assert.deepEqual(forwardableRequestHeaders(client), {
    'content-type': 'application/json',
    'user-agent': 'test',
    'x-trace': ['a', 'b'],
  });
  assert.deepEqual(client, before, 'the input is left alone');
  assert.deepEqual(
    forwardableRequestHeaders({ connection: 'x-a,, X-B ', 'x-a': '1', 'x-b': '2', 'x-c': '3' }),
    { 'x-c': '3' },
  );
});
