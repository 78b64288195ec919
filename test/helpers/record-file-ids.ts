// Reads a records file as a disk-full test must: every line parses (a torn line throws), the file ends with a
// whole line, and no request id is on disk twice.
import assert from 'node:assert/strict';

/** The request ids of a records file's lines, in file order. */
export function idsInFile(text: string): string[] {
  assert.ok(text === '' || text.endsWith('\n'), 'the file ends with a whole line');
  const ids = text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => (JSON.parse(line) as { requestId: string }).requestId);
  assert.equal(new Set(ids).size, ids.length, 'no record on disk twice');
  return ids;
}
