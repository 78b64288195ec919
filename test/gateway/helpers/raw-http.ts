// Sends a hand-written HTTP/1.1 request over a plain socket: for request targets that HTTP clients normalize or
// refuse (`..`, absolute-form, odd Host headers).
import { connect } from 'node:net';
import { withDeadline } from '../../helpers/deadline.js';

export interface RawResponse {
  readonly status: number;
  readonly head: string;
  readonly body: string;
  /** Interim (1xx) responses that came before the final one, each as its status line. */
  readonly interim: string[];
}

export function rawRequest(url: string, requestHead: string, body = ''): Promise<RawResponse> {
  const { hostname, port } = new URL(url);
  const answer = new Promise<RawResponse>((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('end', () => {
      let text = Buffer.concat(chunks).toString('utf8');
      const interim: string[] = [];
      while (/^HTTP\/1\.1 1\d\d /.test(text)) {
        const end = text.indexOf('\r\n\r\n');
        interim.push(text.slice(0, text.indexOf('\r\n')));
        text = text.slice(end + 4);
      }
      const split = text.indexOf('\r\n\r\n');
      const head = text.slice(0, split);
      resolve({ status: Number(head.split(' ')[1]), head, body: text.slice(split + 4), interim });
    });
    const length = Buffer.byteLength(body);
    socket.write(`${requestHead}\r\ncontent-length: ${length}\r\nconnection: close\r\n\r\n${body}`);
  });
  return withDeadline(answer, () => `the answer to ${requestHead.split('\r\n')[0]} and its connection's end`);
}
