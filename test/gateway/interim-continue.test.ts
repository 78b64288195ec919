// The upstream sockets' 100 Continue filter (src/gateway/exchange/upstream-dispatcher.ts) against a raw upstream on a
// real socket: a 100 cut by the network at every byte, joined to the final answer in one read or not, one per
// response on a kept-alive connection, and a body whose text looks like a 100 (left alone: only where a response
// begins).
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { test } from 'node:test';
import { Agent, request } from 'undici';
import { connectorIgnoringContinue } from '../../src/gateway/exchange/upstream-dispatcher.js';

const CONTINUE = 'HTTP/1.1 100 Continue\r\n\r\n';

function answer(body: string): string {
  return `HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

/** A raw upstream that answers the n-th request on a connection with `bytes(n)` written in the given pieces. */
async function rawUpstream(
  pieces: (n: number) => string[],
): Promise<{ url: string; connections(): number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let n = 0;
  const server = createServer((socket) => {
    sockets.add(socket);
    let pending = '';
    socket.on('data', async (data) => {
      pending += data.toString('latin1');
      while (pending.includes('\r\n\r\n')) {
        pending = pending.slice(pending.indexOf('\r\n\r\n') + 4);
        for (const piece of pieces(n++)) {
          socket.write(piece);
          // Its own read on the other side.
          await new Promise((resolve) => setTimeout(resolve, 2));
        }
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: () => sockets.size,
    close: async () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

async function get(url: string, agent: Agent): Promise<{ status: number; body: string }> {
  const response = await request(url, { dispatcher: agent });
  return { status: response.statusCode, body: await response.body.text() };
}

test('a 100 cut at every byte, alone or joined to the answer: the answer arrives whole', async () => {
  const whole = `${CONTINUE}${answer('hi')}`;
  for (let cut = 1; cut < whole.length; cut++) {
    const upstream = await rawUpstream(() => [whole.slice(0, cut), whole.slice(cut)]);
    const agent = new Agent({ connect: connectorIgnoringContinue({}) });
    assert.deepEqual(await get(upstream.url, agent), { status: 200, body: 'hi' }, `cut at ${cut}`);
    await agent.close();
    await upstream.close();
  }
});

test('a 100 before each answer on a kept-alive connection, and a body that reads like one, left alone', async () => {
  const lookalike = `${CONTINUE}not a head`;
  const upstream = await rawUpstream((n) => [
    CONTINUE,
    CONTINUE,
    answer(n === 1 ? lookalike : `answer ${n}`),
  ]);
  // One connection, so every answer after the first comes on a kept-alive one.
  const agent = new Agent({ connect: connectorIgnoringContinue({}), connections: 1 });
  for (let n = 0; n < 3; n++) {
    assert.deepEqual(await get(upstream.url, agent), {
      status: 200,
      body: n === 1 ? lookalike : `answer ${n}`,
    });
  }
  assert.equal(upstream.connections(), 1);
  await agent.close();
  await upstream.close();
});

test('without the filter, undici fails the request on a 100 (what the filter is for)', async () => {
  const upstream = await rawUpstream(() => [CONTINUE, answer('hi')]);
  const agent = new Agent();
  await assert.rejects(get(upstream.url, agent), /bad response|other side closed|SocketError/);
  await agent.close();
  await upstream.close();
});
