// The closed-loop engine, on autocannon: a fixed number of connections, each sending its next request as soon as
// the previous answer ends (maximum throughput at a fixed concurrency). autocannon's own figures are not used:
// every request is measured chunk by chunk through the client's 'request' / 'headers' / 'body' / 'response'
// events into the same MeasuredRequest (and so StreamMeter) as the open-loop engine.
//
// autocannon's traps, and what is done about each:
// - its per-request timeout is re-armed only when a request is written, never on incoming data, so any stream
//   longer than it would be killed: it is set to a day, and our own idle timeout (re-armed on every byte) applies;
// - with a rate set it "corrects" coordinated omission by inventing samples: no rate is ever set (closed loop has
//   none), so the correction never runs (autocannon itself refuses ignoreCoordinatedOmission without a rate), and
//   its histograms are not read anyway;
// - each connection iterates the request list from its own start (2 connections replay p0,p0,p1,p1): one shared
//   cursor hands out dataset positions in write order, and `amount` = the dataset size, so it replays once;
// - requests in flight when it stops are dropped without a trace: they are recorded here as `client_abort`;
// - when it replaces a connection mid-answer it keeps the old parser state: reset here (see autocannon-client.ts).
// Correlation is per connection: pipelining is 1, so a connection has at most one request in flight.

import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { newSpan, type TraceSpan, traceparentOf } from '../../src/shared/trace-context.js';
import type { RequestRecord } from '../record.js';
import {
  type AutocannonClient,
  asAutocannonClient,
  type ParserHeadersInfo,
  resetParser,
} from './autocannon-client.js';
import type { Engine, EngineResult, EngineRunOptions } from './engine.js';
import {
  AnswerTooLongError,
  ConnectionClosedError,
  IdleTimeoutError,
  RunAbortedError,
} from './failure-kind.js';
import { MeasuredRequest } from './measured-request.js';

const A_DAY_S = 86_400;
/** How often autocannon looks at its stop flag (its default is 1 s, which would add up to 1 s to every run). */
const SAMPLE_INTERVAL_MS = 50;

interface Connection {
  readonly client: AutocannonClient;
  current: MeasuredRequest | undefined;
  idleTimer: NodeJS.Timeout | undefined;
  /** Dataset position of the request autocannon built while constructing this client (its first). */
  firstIndex: number | undefined;
}

export function createClosedLoopEngine(concurrency: number): Engine {
  return { name: 'closed-loop', run: (options) => runClosedLoop(options, concurrency) };
}

function runClosedLoop(options: EngineRunOptions, concurrency: number): Promise<EngineResult> {
  const { target, requests, signal } = options;
  const total = requests.length;
  const connections: Connection[] = [];
  let cursor = 0;
  let builtBeforeClient: number | undefined;
  let awaitingIndex: { connection: Connection; sentAtMs: number } | undefined;
  // Each request's span, drawn where its headers are built (setupRequest), which for a client's first request is
  // before the request is begun.
  const spans: TraceSpan[] = [];
  let recorded = 0;
  let lastEndMs = 0;
  const startedAtMs = performance.now();

  return new Promise((resolve, reject) => {
    let instance: autocannon.Instance | undefined;
    let settled = false;
    const finishRun = (): void => {
      if (settled) return;
      settled = true;
      for (const connection of connections) settle(connection, (m) => m.fail(new RunAbortedError()));
      signal.removeEventListener('abort', stop);
      resolve({
        startedAtMs,
        durationMs: Math.max(0, (lastEndMs || performance.now()) - startedAtMs),
        recorded,
        aborted: signal.aborted,
      });
    };
    let stopping = false;
    const stop = (): void => {
      stopping = true;
      for (const connection of connections) settle(connection, (m) => m.fail(new RunAbortedError()));
      instance?.stop();
    };

    function settle(connection: Connection, end: (m: MeasuredRequest) => RequestRecord): void {
      const measured = connection.current;
      clearTimeout(connection.idleTimer);
      if (measured === undefined || measured.finished) return;
      connection.current = undefined;
      lastEndMs = Math.max(lastEndMs, performance.now());
      recorded++;
      options.onRecord(end(measured), startedAtMs);
      if (recorded === total) instance?.stop();
    }

    function armIdle(connection: Connection): void {
      clearTimeout(connection.idleTimer);
      connection.idleTimer = setTimeout(() => {
        settle(connection, (m) => m.fail(new IdleTimeoutError(options.idleTimeoutMs)));
        resetParser(connection.client);
        connection.client._resetConnection?.();
      }, options.idleTimeoutMs);
    }

    function begin(connection: Connection, index: number, sentAtMs: number): void {
      const request = requests[index];
      if (request === undefined) return;
      const measured = new MeasuredRequest({
        index: request.index,
        promptTokens: request.promptTokens,
        runStartMs: startedAtMs,
        // Closed loop has no schedule: a request is due when its connection frees up, so lag is 0 by definition.
        intendedOffsetMs: sentAtMs - startedAtMs,
        protocol: target.protocol,
        tokenizer: options.tokenizer,
        keepText: options.keepText,
        errorBodyBytes: options.errorBodyBytes,
        idleTimeoutMs: options.idleTimeoutMs,
        trace: spans[index] as TraceSpan,
      });
      measured.markSent(sentAtMs);
      connection.current = measured;
      options.onSent?.(request.index);
      armIdle(connection);
    }

    function setupClient(raw: unknown): void {
      const client = asAutocannonClient(raw);
      const connection: Connection = {
        client,
        current: undefined,
        idleTimer: undefined,
        firstIndex: builtBeforeClient,
      };
      builtBeforeClient = undefined;
      connections.push(connection);
      client.on('request', () => {
        const now = performance.now();
        // A new request while one is unfinished: autocannon replaced the connection silently (the server closed
        // it mid-answer), so the old answer was cut short.
        if (connection.current !== undefined && !connection.current.finished) {
          settle(connection, (m) => m.fail(new ConnectionClosedError()));
          resetParser(client);
        }
        // The first request's body was built when the client was constructed; later ones are built by
        // setupRequest right after this event, which is where their dataset position is drawn.
        if (client.reqsMade === 0 && connection.firstIndex !== undefined)
          begin(connection, connection.firstIndex, now);
        else awaitingIndex = { connection, sentAtMs: now };
      });
      client.on('headers', (info: ParserHeadersInfo) => {
        connection.current?.onHeaders(info.statusCode, info.statusMessage ?? '', info.headers ?? []);
        armIdle(connection);
      });
      client.on('body', (chunk: Buffer) => {
        connection.current?.onBody(chunk);
        if (connection.current?.stoppedReading === true) {
          settle(connection, (m) => m.fail(new AnswerTooLongError()));
          resetParser(client);
          client._resetConnection?.();
          return;
        }
        armIdle(connection);
      });
      client.on('response', () => settle(connection, (m) => m.complete()));
      // A client finishes its share of requests ('done'); one still unfinished then had its connection closed by
      // the server, and autocannon, with nothing left to send, gave up on it without a word.
      client.on('done', () => {
        if (!stopping) settle(connection, (m) => m.fail(new ConnectionClosedError()));
      });
      client.on('connError', (error: unknown) => {
        settle(connection, (m) => m.fail(error instanceof Error ? error : new Error(String(error))));
        resetParser(client);
      });
    }

    function setupRequest(request: autocannon.Request): autocannon.Request {
      const index = Math.min(cursor++, total - 1);
      const span = newSpan();
      spans[index] = span;
      if (awaitingIndex !== undefined) {
        begin(awaitingIndex.connection, index, awaitingIndex.sentAtMs);
        awaitingIndex = undefined;
      } else {
        builtBeforeClient = index;
      }
      const prepared = requests[index];
      return {
        ...request,
        method: 'POST',
        path: target.path,
        headers: {
          ...target.headers,
          'x-request-id': prepared?.requestId ?? '',
          traceparent: traceparentOf(span),
        },
        body: prepared?.body ?? '',
      };
    }

    if (total === 0) return finishRun();
    signal.addEventListener('abort', stop, { once: true });
    try {
      instance = autocannon(
        {
          url: `${target.origin}${target.path}`,
          connections: Math.min(concurrency, total),
          amount: total,
          pipelining: 1,
          timeout: A_DAY_S,
          sampleInt: SAMPLE_INTERVAL_MS,
          requests: [{ setupRequest }],
          setupClient,
        },
        (error: Error | null) => (error ? reject(error) : finishRun()),
      );
    } catch (error) {
      reject(error);
    }
  });
}
