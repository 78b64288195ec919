// Test helper: classifies one event's data as it would arrive from the parser.

import type { SseEvent } from '../../src/sse/sse-parser.js';

export function sseEvent(data: string, event?: string): SseEvent {
  return { event, data, id: undefined, startByte: 0, endByte: 0 };
}

/** A chat chunk with the given choices and extra top-level fields. */
export function chatChunk(choices: readonly object[], extra: object = {}): string {
  return JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', model: 'm', choices, ...extra });
}

export function delta(fields: object, finishReason: string | null = null): object {
  return { index: 0, delta: fields, finish_reason: finishReason };
}
