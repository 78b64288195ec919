// docs/loadgen.md's examples run as written (test/docs/helpers/guide-examples.ts says how): its first run, reading
// the report, rates and concurrency, and the server's metrics; and every `sh` block of the guide is in one of the
// sections some test file runs, with a marker, if any, that the runner reads.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { shellCommands } from '../helpers/doc-code-blocks.js';
import { GUIDE, guideBlocks, SECTION_GROUPS, testGuideSections } from './helpers/guide-examples.js';

test('every sh block of the guide is run by a test file, or says why not', () => {
  const covered: readonly string[] = Object.values(SECTION_GROUPS).flat();
  const blocks = guideBlocks();
  assert.ok(blocks.length >= 15, `${blocks.length} sh blocks`);
  for (const { block, section } of blocks) {
    assert.ok(covered.includes(section), `line ${block.line} is under ${section}, which no test file runs`);
    const note = block.note ?? '';
    assert.ok(
      block.note === undefined || /^(not run: .+|exits \d+: .+)$/.test(note),
      `line ${block.line}: a marker is "not run: why" or "exits N: why", not "${note}"`,
    );
    if (!note.startsWith('not run'))
      assert.ok(shellCommands(block.text, 'tokenmeter').length > 0, `line ${block.line} runs tokenmeter`);
  }
  assert.ok(GUIDE.includes('## What the numbers mean'));
});

testGuideSections(SECTION_GROUPS.firstRuns);
