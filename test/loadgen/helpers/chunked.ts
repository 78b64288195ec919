// Test helper: feeds bytes to a streaming consumer in reads of a chosen size, to put element boundaries,
// escapes and multi-byte characters across read boundaries.

export async function* inChunks(bytes: Buffer, size: number): AsyncGenerator<Buffer> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}
