// Starts a real gateway on 127.0.0.1:0 for a test, capturing its JSON log lines and its records.
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { request } from 'undici';
import { buildGateway } from '../../../plugins/index.js';
import type { GatewayConfigInput } from '../../../src/gateway/config/config.js';
import { resolveConfig } from '../../../src/gateway/config/config-resolve.js';
import { validateConfig } from '../../../src/gateway/config/config-validate.js';
import type { Gateway } from '../../../src/gateway/context.js';
import { REDACTED_PATHS } from '../../../src/gateway/logs/logger.js';
import type { RequestRecord } from '../../../src/gateway/records/record.js';
import { withDeadline } from '../../helpers/deadline.js';

export interface TestGateway extends Gateway {
  /** `http://127.0.0.1:PORT` */
  readonly url: string;
  readonly logs: string[];
  readonly records: RequestRecord[];
  /** Resolves with the first `count` records (those already finished included); fails after WAIT_DEADLINE_MS. */
  recordsAfter(count: number, deadlineMs?: number): Promise<RequestRecord[]>;
  close(): Promise<void>;
}

export async function startGateway(
  input: GatewayConfigInput,
  env: NodeJS.ProcessEnv = {},
): Promise<TestGateway> {
  const config = await resolveConfig(validateConfig(JSON.parse(JSON.stringify(input))), env);
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(
        ...chunk
          .toString('utf8')
          .split('\n')
          .filter((l) => l !== ''),
      );
      done();
    },
  });
  const records: RequestRecord[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const gateway = await buildGateway(config, {
    logger: pino({ level: 'info', redact: REDACTED_PATHS }, sink),
    onRecord: (record) => {
      records.push(record);
      for (const w of waiters.splice(0)) {
        if (records.length >= w.count) w.resolve();
        else waiters.push(w);
      }
    },
  });
  await gateway.app.listen({ host: '127.0.0.1', port: 0 });
  const port = (gateway.app.server.address() as AddressInfo).port;
  return {
    ...gateway,
    url: `http://127.0.0.1:${port}`,
    logs,
    records,
    recordsAfter: (count, deadlineMs) =>
      withDeadline(
        new Promise((resolve) => {
          if (records.length >= count) resolve(records.slice(0, count));
          else waiters.push({ count, resolve: () => resolve(records.slice(0, count)) });
        }),
        () =>
          `${count} records, ${records.length} arrived: [${records.map((r) => `${r.requestId} ${r.outcome}(${r.status})`).join(', ')}]`,
        deadlineMs,
      ),
    close: () => gateway.app.close(),
  };
}

/** Sends the smallest streamed chat request through the gateway and reads the whole answer. */
export async function sendStreamedChat(gatewayUrl: string): Promise<{ status: number; text: string }> {
  const response = await request(`${gatewayUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"model":"m","stream":true}',
  });
  return { status: response.statusCode, text: await response.body.text() };
}
