// A test OTLP/HTTP trace receiver on 127.0.0.1:0: decodes JSON exports into flat spans, and for protobuf keeps
// the raw bodies (the tests look for ids' bytes in them). It can also misbehave: accept and never answer.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSpan {
  readonly serviceName: string;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly name: string;
  readonly kind: number;
  readonly startNs: bigint;
  readonly endNs: bigint;
  readonly attributes: Record<string, unknown>;
  readonly events: readonly { name: string; timeNs: bigint }[];
  readonly statusCode: number;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpValue[] };
}

function decodeValue(v: OtlpValue): unknown {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.arrayValue !== undefined) return (v.arrayValue.values ?? []).map(decodeValue);
  return undefined;
}

function attributesOf(list: { key: string; value: OtlpValue }[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((a) => [a.key, decodeValue(a.value)]));
}

// biome-ignore lint/suspicious/noExplicitAny: the OTLP JSON shape, read field by field
function spansOf(body: any): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of body.resourceSpans ?? []) {
    const serviceName = String(attributesOf(rs.resource?.attributes)['service.name']);
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        out.push({
          serviceName,
          traceId: s.traceId,
          spanId: s.spanId,
          parentSpanId: s.parentSpanId ?? '',
          name: s.name,
          kind: s.kind,
          startNs: BigInt(s.startTimeUnixNano),
          endNs: BigInt(s.endTimeUnixNano),
          attributes: attributesOf(s.attributes),
          // biome-ignore lint/suspicious/noExplicitAny: as above
          events: (s.events ?? []).map((e: any) => ({ name: e.name, timeNs: BigInt(e.timeUnixNano) })),
          statusCode: s.status?.code ?? 0,
        });
      }
    }
  }
  return out;
}

export interface OtlpReceiver {
  /** `http://127.0.0.1:PORT` (base URL: exports go to /v1/traces). */
  readonly url: string;
  readonly spans: ReceivedSpan[];
  readonly protobufBodies: Buffer[];
  readonly contentTypes: string[];
  /** Resolves once `count` spans (JSON) have arrived. */
  spansAfter(count: number): Promise<ReceivedSpan[]>;
  /** Resolves once `count` protobuf exports have arrived. */
  protobufAfter(count: number): Promise<Buffer[]>;
  close(): Promise<void>;
}

export async function startOtlpReceiver(behaviour: 'answer' | 'hang' = 'answer'): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const protobufBodies: Buffer[] = [];
  const contentTypes: string[] = [];
  const waiters: { ready: () => boolean; resolve: () => void }[] = [];
  const when = (ready: () => boolean): Promise<void> =>
    ready() ? Promise.resolve() : new Promise((resolve) => waiters.push({ ready, resolve }));
  const hanging: ServerResponse[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      if (behaviour === 'hang') {
        hanging.push(res);
        return;
      }
      const type = String(req.headers['content-type'] ?? '');
      contentTypes.push(type);
      const body = Buffer.concat(parts);
      if (type.includes('json')) spans.push(...spansOf(JSON.parse(body.toString('utf8'))));
      else protobufBodies.push(body);
      for (const w of waiters.splice(0)) {
        if (w.ready()) w.resolve();
        else waiters.push(w);
      }
      res.writeHead(200, { 'content-type': type.includes('json') ? 'application/json' : type });
      res.end(type.includes('json') ? '{}' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    protobufBodies,
    contentTypes,
    spansAfter: (count) => when(() => spans.length >= count).then(() => spans),
    protobufAfter: (count) => when(() => protobufBodies.length >= count).then(() => protobufBodies),
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
