// The two span kinds this project's spans use, as the values of @opentelemetry/api's SpanKind enum, without
// importing that enum's value: doing so loads the API package's 44 modules. `bench` loads nothing else of it, so
// with spans off it pays nothing; `serve` and `sim` load it anyway through prom-client (its exemplars). Only the
// type is imported here; test/tracing/span-kinds.test.ts holds the numbers to the enum's.
import type { SpanKind } from '@opentelemetry/api';

export const SERVER_SPAN_KIND = 1 as SpanKind.SERVER;
export const CLIENT_SPAN_KIND = 2 as SpanKind.CLIENT;
