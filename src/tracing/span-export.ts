// Exports finished spans over OTLP/HTTP with the official OpenTelemetry SDK: its BatchSpanProcessor (a bounded
// queue, batches sent on a timer, off the request path) and its OTLP exporters (JSON or protobuf). tokenmeter's
// spans are not started and ended through a Tracer: each is built once, when its request's record is, as a
// ReadableSpan carrying the ids already in the records (src/shared/trace-context.ts), so a span and its record
// join by spanId, and timed from the record's monotonic clock, converted to wall-clock time with one offset taken
// at start (never Date.now per span or event).
import { performance } from 'node:perf_hooks';
import {
  type Attributes,
  createNoopMeter,
  type HrTime,
  type Meter,
  type MeterProvider,
  type SpanContext,
  type SpanKind,
  SpanStatusCode,
} from '@opentelemetry/api';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { type Resource, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { packageVersion } from '../shared/package-version.js';
import type { TraceSpan } from '../shared/trace-context.js';
import type { OtlpExportSettings } from './otlp-settings.js';

export interface SpanEventFacts {
  readonly name: string;
  /** performance.now() of the event. */
  readonly atMs: number;
}

/** One finished span, as its part knows it: ids from its record, times on the performance.now() clock. */
export interface FinishedSpan {
  readonly name: string;
  readonly kind: SpanKind;
  readonly trace: TraceSpan;
  readonly startMs: number;
  readonly endMs: number;
  readonly attributes: Attributes;
  readonly events: readonly SpanEventFacts[];
  /** Set for a failed request: the span's status is ERROR with this description. */
  readonly errorDescription: string | null;
}

/** What happened to the spans handed over so far. */
export interface SpanExportCounts {
  /** Accepted by the collector. */
  readonly exported: number;
  /** Dropped because the queue was full (the collector slow, unreachable or hanging). */
  readonly dropped: number;
  /** Sent in a batch the collector refused or never answered within the export timeout. */
  readonly failed: number;
}

/** The instrumentation scope every tokenmeter span carries. */
const SCOPE = Object.freeze({ name: 'tokenmeter', version: packageVersion() });
const SAMPLED = 0x01;
const NO_LINKS: never[] = [];
/**
 * Exports the OTLP exporter may have under way at once. The processor sends one batch at a time, but stops
 * waiting for one after the export timeout while its HTTP request (and its retries) may go on: the exporter's
 * default of 30 would let a hung collector hold 30 batches in memory beyond the queue. With 2, at most the queue
 * plus two batches are held; a batch over the limit fails at once and is counted.
 */
const EXPORT_CONCURRENCY = 2;

function hrTime(epochMs: number): HrTime {
  const seconds = Math.floor(epochMs / 1000);
  const nanos = Math.round((epochMs - seconds * 1000) * 1e6);
  // Rounding can reach a whole second; HrTime's nanoseconds must stay below it.
  return nanos >= 1e9 ? [seconds + 1, nanos - 1e9] : [seconds, nanos];
}

/**
 * A MeterProvider for the SDK's own accounting (its "self-observability" option, marked experimental in
 * sdk-trace 2.x): the processor counts every span it finishes as `otel.sdk.processor.span.processed`, with
 * `error.type` = `queue_full` for a dropped one and the export error's name for a failed batch. Reading those
 * counts here beats counting beside the SDK, which cannot see its queue.
 */
function countingMeterProvider(
  counts: { exported: number; dropped: number; failed: number },
  onFirstLoss: (why: string) => void,
): MeterProvider {
  const meter: Meter = Object.create(createNoopMeter());
  let lost = false;
  meter.createCounter = () =>
    ({
      add(value: number, attributes?: Attributes) {
        const errorType = attributes?.['error.type'];
        if (errorType === undefined) {
          counts.exported += value;
          return;
        }
        if (errorType === 'queue_full') counts.dropped += value;
        else counts.failed += value;
        if (!lost) {
          lost = true;
          onFirstLoss(
            errorType === 'queue_full'
              ? 'the export queue is full'
              : `an export failed (${String(errorType)})`,
          );
        }
      },
    }) as ReturnType<Meter['createCounter']>;
  return { getMeter: () => meter };
}

export class SpanExport {
  readonly #processor: BatchSpanProcessor;
  readonly #resource: Resource;
  readonly #counts = { exported: 0, dropped: 0, failed: 0 };
  /**
   * Wall-clock milliseconds at performance.now() = 0: the process's own `timeOrigin`, the one offset every exporter
   * in a process shares (as the span receiver's join and the simulator's truth use it). Each exporter taking
   * `Date.now() - performance.now()` for itself got offsets up to a millisecond apart (Date.now() counts whole
   * milliseconds), so a bench, gateway and simulator in one process could export a child span ending after its
   * parent.
   */
  readonly #epochAtZeroMs = performance.timeOrigin;
  readonly #shutdownBoundMs: number;

  /** `onFirstLoss` is told once, at the first span dropped or failed, so the loss can be said where users look. */
  constructor(
    readonly settings: OtlpExportSettings,
    onFirstLoss: (why: string) => void = () => {},
  ) {
    const exporterConfig = {
      url: settings.tracesUrl,
      timeoutMillis: settings.exportTimeoutMs,
      concurrencyLimit: EXPORT_CONCURRENCY,
    };
    const exporter =
      settings.protocol === 'http/json'
        ? new JsonExporter(exporterConfig)
        : new ProtobufExporter(exporterConfig);
    this.#resource = resourceFromAttributes({
      'service.name': settings.serviceName,
      'service.version': SCOPE.version,
      'telemetry.sdk.name': 'opentelemetry',
      'telemetry.sdk.language': 'nodejs',
    });
    this.#processor = new BatchSpanProcessor({
      exporter,
      maxQueueSize: settings.maxQueueSize,
      maxExportBatchSize: settings.maxExportBatchSize,
      scheduledDelayMillis: settings.scheduledDelayMs,
      exportTimeoutMillis: settings.exportTimeoutMs,
      selfObsMeterProvider: countingMeterProvider(this.#counts, onFirstLoss),
    });
    this.#shutdownBoundMs = settings.exportTimeoutMs;
  }

  get counts(): SpanExportCounts {
    return { ...this.#counts };
  }

  /** Queues the span (or drops and counts it when the queue is full); never waits on the network. */
  add(span: FinishedSpan): void {
    const flags = Number.parseInt(span.trace.flags, 16);
    // A trace its caller did not sample is not recorded here either (parent-based sampling).
    if ((flags & SAMPLED) === 0) return;
    this.#processor.onEnd(this.#readable(span, flags));
  }

  /** Sends what is queued and stops; bounded by the export timeout, so an unreachable collector cannot hold a
   *  shutdown. */
  async shutdown(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.#shutdownBoundMs);
      timer.unref();
    });
    // A failed last export is counted by the processor; shutting down must not throw for it.
    await Promise.race([this.#processor.shutdown().catch(() => undefined), bound]);
    clearTimeout(timer);
  }

  #readable(span: FinishedSpan, traceFlags: number): ReadableSpan {
    const context: SpanContext = { traceId: span.trace.traceId, spanId: span.trace.spanId, traceFlags };
    const parentSpanId = span.trace.parentSpanId;
    const startTime = hrTime(this.#epochAtZeroMs + span.startMs);
    const durationMs = Math.max(0, span.endMs - span.startMs);
    return {
      name: span.name,
      kind: span.kind,
      spanContext: () => context,
      ...(parentSpanId === null
        ? {}
        : { parentSpanContext: { ...context, spanId: parentSpanId, isRemote: true } }),
      startTime,
      endTime: hrTime(this.#epochAtZeroMs + span.startMs + durationMs),
      duration: hrTime(durationMs),
      status:
        span.errorDescription === null
          ? { code: SpanStatusCode.UNSET }
          : { code: SpanStatusCode.ERROR, message: span.errorDescription },
      attributes: span.attributes,
      links: NO_LINKS,
      events: span.events.map((event) => ({
        name: event.name,
        time: hrTime(this.#epochAtZeroMs + event.atMs),
      })),
      ended: true,
      resource: this.#resource,
      instrumentationScope: SCOPE,
      droppedAttributesCount: 0,
      droppedEventsCount: 0,
      droppedLinksCount: 0,
    };
  }
}
