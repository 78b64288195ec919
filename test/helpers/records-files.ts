// Test helpers for records files under operations: streamed requests that must each arrive whole, a records file
// read strictly (no NUL byte, no torn line), waiting with a deadline, and what a FIFO holds.
import assert from 'node:assert/strict';
import { readSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { request } from 'undici';
import type { RequestRecord } from '../../src/gateway/records/record.js';

/** Sends `count` streamed chat requests with ids `${prefix}-i`; asserts each client got the whole stream. */
export async function sendStreams(url: string, prefix: string, count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, (_, i) => `${prefix}-${i}`);
  const texts = await Promise.all(
    ids.map(async (id) => {
      const response = await request(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': id },
        body: '{"model":"m","stream":true}',
      });
      return `${response.statusCode} ${await response.body.text()}`;
    }),
  );
  assert.equal(
    texts.filter((text) => text.startsWith('200 ') && text.endsWith('data: [DONE]\n\n')).length,
    count,
    'every client received its whole stream',
  );
  return ids;
}

/** Every line of a records file, parsed; fails on a NUL byte, a torn line or a missing final newline. */
export async function strictRecordsIn(file: string): Promise<RequestRecord[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  assert.equal(text.indexOf('\0'), -1, `${file} holds no NUL byte`);
  assert.ok(text === '' || text.endsWith('\n'), `${file} ends with a whole line`);
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as RequestRecord);
}

/**
 * How many whole lines the file holds now. For polling while the gateway writes: a reader can see a batch half
 * written (a write is not atomic to readers), so only the finished file is read strictly.
 */
export async function wholeLinesIn(file: string): Promise<number> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text.split('\n').length - 1;
}

/** Waits until `check` holds, failing after 5 s with what it waited for. */
export async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = performance.now() + 5000;
  while (!(await check())) {
    if (performance.now() > deadline) assert.fail(`waited 5 s for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** What a pipe holds, read without waiting, until its writers closed (EOF) or it is empty. */
export function drainPipe(fd: number): string {
  const chunks: Buffer[] = [];
  const buffer = Buffer.alloc(64 * 1024);
  for (;;) {
    let n: number;
    try {
      n = readSync(fd, buffer, 0, buffer.length, null);
    } catch (error) {
      if ((error as { code?: string }).code === 'EAGAIN') break;
      throw error;
    }
    if (n === 0) break;
    chunks.push(Buffer.from(buffer.subarray(0, n)));
  }
  return Buffer.concat(chunks).toString('utf8');
}
