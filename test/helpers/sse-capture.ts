// Test helper: posts a request and records every SSE `data:` payload with the time its last byte arrived.
// Deliberately naive (splits on blank lines) so that it cannot share a bug with the product's own SSE parser.
import { performance } from 'node:perf_hooks';
import { request } from 'undici';

export interface CapturedEvent {
  /** The `event:` field, when the block has one (Anthropic and Responses streams). */
  readonly event: string | undefined;
  readonly data: string;
  readonly atMs: number;
}

export interface CapturedStream {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly events: CapturedEvent[];
  readonly raw: string;
  readonly sentAtMs: number;
  /** Set when the connection broke before the body ended. */
  readonly error: Error | undefined;
}

export async function postAndCapture(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<CapturedStream> {
  const sentAtMs = performance.now();
  const res = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const events: CapturedEvent[] = [];
  let pending = '';
  let raw = '';
  let error: Error | undefined;
  const decoder = new TextDecoder();
  try {
    for await (const chunk of res.body) {
      const atMs = performance.now();
      const text = decoder.decode(chunk as Buffer, { stream: true });
      raw += text;
      pending += text;
      let end = pending.indexOf('\n\n');
      while (end >= 0) {
        const block = pending.slice(0, end);
        pending = pending.slice(end + 2);
        const lines = block.split('\n');
        const event = lines.find((l) => l.startsWith('event: '))?.slice(7);
        for (const line of lines) {
          if (line.startsWith('data: ')) events.push({ event, data: line.slice(6), atMs });
        }
        end = pending.indexOf('\n\n');
      }
    }
  } catch (caught) {
    error = caught as Error;
  }
  return { status: res.statusCode, headers: res.headers, events, raw, sentAtMs, error };
}

/** The JSON payloads of a capture, with `[DONE]` kept as the string. */
export function payloads(stream: CapturedStream): Array<Record<string, unknown> | '[DONE]'> {
  return stream.events.map((e) =>
    e.data === '[DONE]' ? '[DONE]' : (JSON.parse(e.data) as Record<string, unknown>),
  );
}

export function chatBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model: 'tokenmeter/sim-7b',
    messages: [{ role: 'user', content: 'Explain time to first token in one paragraph.' }],
    max_tokens: 8,
    stream: true,
    ...overrides,
  };
}
