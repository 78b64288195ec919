// The gateway logger's two formats: the same keys redacted in both, and pretty lines that keep a line's fields and
// an error's message and stack readable.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createGatewayLogger } from '../../src/gateway/logs/logger.js';

function capture() {
  const lines: string[] = [];
  return { lines, destination: { write: (line: string) => void lines.push(line) } };
}

for (const format of ['json', 'pretty'] as const) {
  test(`${format}: credential headers are redacted`, () => {
    const { lines, destination } = capture();
    const log = createGatewayLogger('info', destination, format);
    log.warn(
      { headers: { authorization: 'Bearer sk-secret-1', 'x-api-key': 'sk-secret-2', accept: '*/*' } },
      'headers seen',
    );
    assert.equal(lines.length, 1);
    assert.doesNotMatch(lines[0] ?? '', /sk-secret/);
    assert.match(lines[0] ?? '', /\[Redacted\]/);
    assert.match(lines[0] ?? '', /\*\/\*/);
  });
}

test('pretty: time, level, message, then the fields; an error with its stack indented below', () => {
  const { lines, destination } = capture();
  const log = createGatewayLogger('info', destination, 'pretty');
  log.info({ requestId: 'r-1', status: 200, path: '/v1/models', hint: 'two words' }, 'request finished');
  log.error({ err: new Error('disk full') }, 'cannot write records');
  assert.match(
    lines[0] ?? '',
    /^\d\d:\d\d:\d\d\.\d{3} INFO {2}request finished requestId=r-1 status=200 path=\/v1\/models hint="two words"\n$/,
  );
  const [first, ...stack] = (lines[1] ?? '').trimEnd().split('\n');
  assert.match(first ?? '', / ERROR cannot write records err="disk full"$/);
  assert.ok(stack.length > 0 && stack.every((frame) => frame.startsWith('    at ')), lines[1]);
});
