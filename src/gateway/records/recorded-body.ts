// The request body as a record keeps it (records.bodies, off by default: bodies hold users' prompts). Capped so
// one huge request cannot bloat the records file; the cut is flagged so a replay knows the body is incomplete.
// Only the body is kept: credentials travel in headers, which are never recorded.

export const MAX_RECORDED_BODY_BYTES = 256 * 1024;

export interface RecordedBody {
  readonly text: string;
  readonly truncated: boolean;
}

export function recordedBody(raw: Buffer): RecordedBody {
  const truncated = raw.length > MAX_RECORDED_BODY_BYTES;
  return {
    text: (truncated ? raw.subarray(0, MAX_RECORDED_BODY_BYTES) : raw).toString('utf8'),
    truncated,
  };
}
