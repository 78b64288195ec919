// Test helper: runs chunks through a fresh parser and returns what it dispatched.

import { type SseEvent, SseParser, type SseParserOptions } from '../../src/sse/sse-parser.js';

export function collectEvents(
  chunks: readonly Uint8Array[],
  options: SseParserOptions = {},
): { events: SseEvent[]; parser: SseParser } {
  const events: SseEvent[] = [];
  const parser = new SseParser((event) => events.push(event), options);
  for (const chunk of chunks) parser.push(chunk);
  parser.end();
  return { events, parser };
}

export function bytes(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

/** The stream cut at every byte. */
export function byteByByte(stream: Uint8Array): Uint8Array[] {
  const pieces: Uint8Array[] = [];
  for (let i = 0; i < stream.length; i++) pieces.push(stream.subarray(i, i + 1));
  return pieces;
}
