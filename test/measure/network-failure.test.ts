// The one network-error classifier: undici's and Node's codes (found through `cause`), one TLS rule, and
// whether the response had started decide the kind and the outcome the gateway, the load generator and the
// doctor all record.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { IdleTimeoutError, RunAbortedError } from '../../loadgen/engine/failure-kind.js';
import { errorCode, failureKindOfCode, networkFailure } from '../../src/measure/network-failure.js';

function coded(code: string): Error {
  return Object.assign(new Error(code), { code });
}

test('each code sorts into one kind; every TLS code into tls by one rule', () => {
  const table: Array<[string | undefined, string]> = [
    ['ECONNREFUSED', 'refused'],
    ['EHOSTUNREACH', 'refused'],
    ['ENOTFOUND', 'dns'],
    ['EAI_AGAIN', 'dns'],
    ['UND_ERR_CONNECT_TIMEOUT', 'connect_timeout'],
    ['UND_ERR_HEADERS_TIMEOUT', 'headers_timeout'],
    ['UND_ERR_BODY_TIMEOUT', 'idle_timeout'],
    ['TOKENMETER_TOTAL_TIMEOUT', 'total_timeout'],
    ['ECONNRESET', 'reset'],
    ['UND_ERR_SOCKET', 'reset'],
    ['UND_ERR_ABORTED', 'aborted'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'tls'],
    ['SELF_SIGNED_CERT_IN_CHAIN', 'tls'],
    ['CERT_HAS_EXPIRED', 'tls'],
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'tls'],
    ['UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'tls'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'tls'],
    ['ERR_SSL_WRONG_VERSION_NUMBER', 'tls'],
    ['EWHATEVER', 'other'],
    [undefined, 'other'],
  ];
  for (const [code, kind] of table) assert.equal(failureKindOfCode(code), kind, String(code));
});

test('the code is found through the cause chain, as undici wraps socket errors', () => {
  const wrapped = new TypeError('fetch failed', {
    cause: new Error('inner', { cause: coded('ECONNREFUSED') }),
  });
  assert.equal(errorCode(wrapped), 'ECONNREFUSED');
  assert.equal(networkFailure(wrapped, false).outcome, 'upstream_unreachable');
});

test('a reset before the answer is unreachable, after it truncated; timeouts and aborts whenever they happen', () => {
  assert.equal(networkFailure(coded('ECONNRESET'), false).outcome, 'upstream_unreachable');
  assert.equal(networkFailure(coded('ECONNRESET'), true).outcome, 'truncated');
  assert.equal(networkFailure(coded('EWHATEVER'), true).outcome, 'truncated');
  assert.equal(networkFailure(coded('UND_ERR_HEADERS_TIMEOUT'), false).outcome, 'upstream_timeout');
  assert.equal(networkFailure(new IdleTimeoutError(100), true).outcome, 'upstream_timeout');
  assert.equal(networkFailure(new RunAbortedError(), true).outcome, 'client_abort');
  assert.equal(networkFailure(coded('CERT_HAS_EXPIRED'), false).outcome, 'upstream_unreachable');
});
