// A response body read up to a size bound: a wrong URL (a file server, a stream) must not pour something
// unbounded into memory. Used by the readers of `/metrics` pages (`tokenmeter top`, the load generator's
// server-metrics scraper) and the gateway's aggregated model list (src/gateway/request-path/models-list.ts).

/** The body's bytes, or null when it passes `maxBytes` (the body is then destroyed). */
export async function boundedBytes(
  body: AsyncIterable<Buffer> & { destroy(): void },
  maxBytes: number,
): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of body) {
    bytes += chunk.length;
    if (bytes > maxBytes) {
      body.destroy();
      return null;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, bytes);
}

/** The body as UTF-8, or null when it passes `maxBytes` (the body is then destroyed). */
export async function boundedText(
  body: AsyncIterable<Buffer> & { destroy(): void },
  maxBytes: number,
): Promise<string | null> {
  return (await boundedBytes(body, maxBytes))?.toString('utf8') ?? null;
}
