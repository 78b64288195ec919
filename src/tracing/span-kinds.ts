// The two span kinds this project's spans use, as the values of @opentelemetry/api's SpanKind enum, without
// importing that enum's value: doing so loads the API package's 44 modules in every command that can make a span
// (serve, bench, sim), spans on or not. Only the type is imported; test/tracing/span-kinds.test.ts holds the
// numbers to the enum's.
import type { SpanKind } from '@opentelemetry/api';

export const SERVER_SPAN_KIND = 1 as SpanKind.SERVER;
export const CLIENT_SPAN_KIND = 2 as SpanKind.CLIENT;
