// Fault rows for what Node's HTTP parser refuses: request-smuggling framing (Transfer-Encoding with
// Content-Length), an over-long header block (431), headers not sent within headersTimeoutMs (408), bytes that are
// not HTTP, and a bad chunk size inside a body already under way. The client gets Node's 4xx and its connection
// closed; nothing reaches the upstream. Accounting: a refusal before any request existed is counted in
// tokenmeter_client_errors_total{reason} (and has no record); the bad chunk's request has its record, `rejected`
// with the client's 400 (not a client abort with status 0), and is not counted again: records + counted
// refusals = requests sent.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { startGateway, type TestGateway } from '../gateway/helpers/gateway.js';
import { sendShortChatStream, startUpstream, type TestUpstream } from '../gateway/helpers/upstream.js';
import { withDeadline } from '../helpers/deadline.js';
import { assertOneRecordPerRequest } from './accounting.js';

const HEADERS_TIMEOUT_MS = 300;

let upstream: TestUpstream;
let gateway: TestGateway;

before(async () => {
  upstream = await startUpstream((_req, res) => sendShortChatStream(res));
  gateway = await startGateway({
    upstreams: [{ name: 'u', baseUrl: upstream.url, keyless: true }],
    clientLimits: { headersTimeoutMs: HEADERS_TIMEOUT_MS },
  });
});
after(async () => {
  await gateway.close();
  await upstream.close();
});

/** Writes `parts` as they are (one every 50 ms after the first) and resolves with what came back by the close. */
function sendRaw(parts: readonly string[]): Promise<string> {
  const { hostname, port } = new URL(gateway.url);
  const answer = new Promise<string>((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) });
    const chunks: Buffer[] = [];
    let next = 0;
    const timer = setInterval(() => {
      if (next < parts.length && !socket.destroyed) socket.write(parts[next++] as string);
    }, 50);
    socket.on('connect', () => socket.write(parts[next++] as string));
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(timer);
      resolve(Buffer.concat(chunks).toString('latin1'));
    });
  });
  return withDeadline(
    answer,
    () => `the gateway to answer and close: ${JSON.stringify(parts[0]?.slice(0, 60))}`,
  );
}

const POST = 'POST /v1/chat/completions HTTP/1.1\r\nhost: gateway\r\ncontent-type: application/json\r\n';

interface Row {
  readonly fault: string;
  readonly parts: readonly string[];
  readonly status: number;
  /** The counter's reason, or null when the request has a record instead. */
  readonly counted: string | null;
}

const ROWS: readonly Row[] = [
  {
    fault: 'Transfer-Encoding and Content-Length together (request smuggling)',
    parts: [`${POST}transfer-encoding: chunked\r\ncontent-length: 4\r\n\r\n0\r\n\r\n`],
    status: 400,
    counted: 'framing',
  },
  {
    fault: 'a header block over 16 KiB',
    parts: [`${POST}x-big: ${'a'.repeat(20_000)}\r\ncontent-length: 2\r\n\r\n{}`],
    status: 431,
    counted: 'header_overflow',
  },
  {
    fault: 'headers trickled past headersTimeoutMs',
    parts: [POST, ...Array.from({ length: 40 }, () => 'x-slow: 1\r\n')],
    status: 408,
    counted: 'request_timeout',
  },
  { fault: 'bytes that are not HTTP', parts: ['HELLO THERE\r\n\r\n'], status: 400, counted: 'malformed' },
  {
    // Unescaped, the look-alikes of a traversal never reach the gateway's path check: Node refuses the target.
    fault: 'a request target with raw UTF-8 dot look-alikes',
    parts: ['GET /v1/\uff0e\uff0e/admin HTTP/1.1\r\nhost: gateway\r\n\r\n'],
    status: 400,
    counted: 'malformed',
  },
  {
    fault: 'a bad chunk size inside the body',
    parts: [`${POST}transfer-encoding: chunked\r\n\r\n`, '5\r\n{"mod\r\n', 'zz\r\n'],
    status: 400,
    counted: null,
  },
];

async function clientErrors(): Promise<Map<string, number>> {
  const page = await (await request(`${gateway.url}/metrics`)).body.text();
  const counts = new Map<string, number>();
  for (const [, reason, value] of page.matchAll(
    /^tokenmeter_client_errors_total\{reason="(\w+)"\} (\d+)$/gm,
  )) {
    counts.set(reason as string, Number(value));
  }
  return counts;
}

for (const row of ROWS) {
  test(`${row.fault}: ${row.status}, ${row.counted === null ? 'recorded rejected' : `counted as ${row.counted}`}`, async () => {
    const recordsBefore = gateway.records.length;
    const countedBefore = await clientErrors();
    const answer = await sendRaw(row.parts);
    assert.match(answer, new RegExp(`^HTTP/1\\.1 ${row.status} `), answer.slice(0, 200));
    const counted = await clientErrors();
    const delta = (reason: string) => (counted.get(reason) ?? 0) - (countedBefore.get(reason) ?? 0);
    if (row.counted === null) {
      const [record] = (await gateway.recordsAfter(recordsBefore + 1)).slice(recordsBefore);
      assert.equal(record?.outcome, 'rejected', String(record?.error));
      assert.equal(record?.status, row.status, "the record's status is the client's");
      assert.match(String(record?.error), /HPE_INVALID_CHUNK_SIZE/);
      for (const reason of counted.keys())
        assert.equal(delta(reason), 0, `${reason} counted besides the record`);
    } else {
      assert.equal(delta(row.counted), 1, `one ${row.counted} counted`);
      assert.equal(gateway.records.length, recordsBefore, 'no record: no request existed');
    }
  });
}

test('a connection that never sends a byte is closed at headersTimeoutMs and counted as no refusal: it carried no request', async () => {
  const countedBefore = await clientErrors();
  const { hostname, port } = new URL(gateway.url);
  const startedAt = performance.now();
  await withDeadline(
    new Promise<void>((resolve) => {
      const socket = connect({ host: hostname, port: Number(port) });
      socket.on('data', () => {});
      socket.on('error', () => {});
      socket.on('close', () => resolve());
    }),
    () => 'the gateway to close a silent connection',
  );
  assert.ok(performance.now() - startedAt >= HEADERS_TIMEOUT_MS, 'closed by the header timeout, not before');
  assert.deepEqual(await clientErrors(), countedBefore);
});

test('the ledger: records + counted refusals = requests sent, and nothing reached the upstream', async () => {
  const counted = [...(await clientErrors()).values()].reduce((a, b) => a + b, 0);
  assertOneRecordPerRequest(gateway.records, gateway.records.length);
  assert.equal(gateway.records.length + counted, ROWS.length);
  assert.equal(upstream.requests.length, 0);
});
