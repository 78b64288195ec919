// The SSE event remover: the usage-only event removed at every split point, everything else byte-identical.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SseEventRemover } from '../../src/sse/event-remover.js';
import { SseParser } from '../../src/sse/sse-parser.js';
import { byteByByte, bytes } from './collect-events.js';
import { CHAT_STREAM_BYTES, chatStreamWithoutUsage } from './fixtures/recorded-chat-stream.js';

// Drives a parser and a remover over `chunks` the way StreamMeter does; returns every forwarded byte, in order.
function forwardRemoving(chunks: readonly Uint8Array[], unwanted: (data: string) => boolean): Uint8Array {
  const remover = new SseEventRemover();
  const parser = new SseParser((event) => {
    if (unwanted(event.data)) remover.remove(event);
  });
  const out: Uint8Array[] = [];
  for (const chunk of chunks) {
    parser.push(chunk);
    out.push(remover.take(chunk, parser.pendingEventStart));
  }
  parser.end();
  out.push(remover.flush());
  return Buffer.concat(out);
}

const isUsageOnly = (data: string): boolean => data.includes('"choices":[]');

test('removing the usage-only event leaves every other byte identical, at every split point', () => {
  const expected = chatStreamWithoutUsage();
  assert.equal(CHAT_STREAM_BYTES.length - expected.length > 50, true);
  for (let cut = 0; cut <= CHAT_STREAM_BYTES.length; cut++) {
    const chunks = [CHAT_STREAM_BYTES.subarray(0, cut), CHAT_STREAM_BYTES.subarray(cut)];
    assert.deepEqual(forwardRemoving(chunks, isUsageOnly), Buffer.from(expected), `split at byte ${cut}`);
  }
  assert.deepEqual(forwardRemoving(byteByByte(CHAT_STREAM_BYTES), isUsageOnly), Buffer.from(expected));
});

test('with nothing to remove, the chunks come back as they went in', () => {
  const remover = new SseEventRemover();
  const parser = new SseParser(() => {});
  const chunk = Buffer.from('data: a\n\n: ping\n\n');
  parser.push(chunk);
  assert.equal(remover.take(chunk, parser.pendingEventStart), chunk);
});

test('a CRLF-terminated removed event split between its CR and LF loses its LF too', () => {
  const stream = 'data: keep\r\n\r\ndata: drop\r\n\r\ndata: keep2\r\n\r\n';
  const cut = stream.indexOf('drop\r\n\r') + 'drop\r\n\r'.length;
  const out = forwardRemoving(
    [bytes(stream.slice(0, cut)), bytes(stream.slice(cut))],
    (data) => data === 'drop',
  );
  assert.equal(new TextDecoder().decode(out), 'data: keep\r\n\r\ndata: keep2\r\n\r\n');
});

test('bytes of an incomplete event are held until it completes, then forwarded', () => {
  const remover = new SseEventRemover();
  const parser = new SseParser(() => {});
  const take = (text: string): string => {
    const chunk = bytes(text);
    parser.push(chunk);
    return new TextDecoder().decode(remover.take(chunk, parser.pendingEventStart));
  };
  assert.equal(take(': ping\n\ndata: par'), ': ping\n\n');
  assert.equal(take('tial\n'), '');
  assert.equal(remover.heldBytes, 'data: partial\n'.length);
  assert.equal(take('\n: next'), 'data: partial\n\n: next');
  assert.equal(remover.heldBytes, 0);
});

test('an event cut off by the end of the stream is forwarded as it came by flush()', () => {
  const out = forwardRemoving([bytes('data: a\n\ndata: cut off')], () => false);
  assert.equal(new TextDecoder().decode(out), 'data: a\n\ndata: cut off');
});

test('after the parser overflows, held bytes are released and the rest passes through', () => {
  const remover = new SseEventRemover();
  const parser = new SseParser(() => {}, { maxEventBytes: 16 });
  const out: Uint8Array[] = [];
  for (const text of ['data: 0123', '456789abcdef', 'ghij\n\ndata: x\n\n']) {
    const chunk = bytes(text);
    parser.push(chunk);
    out.push(remover.take(chunk, parser.pendingEventStart));
  }
  assert.equal(parser.overflowed, true);
  assert.equal(new TextDecoder().decode(Buffer.concat(out)), 'data: 0123456789abcdefghij\n\ndata: x\n\n');
});
