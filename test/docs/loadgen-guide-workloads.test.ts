// docs/loadgen.md's "Choosing a workload" runs as written (test/docs/helpers/guide-examples.ts says how), and shows
// a command for each workload the load generator offers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { docSection } from '../helpers/doc-code-blocks.js';
import { GUIDE, SECTION_GROUPS, testGuideSections } from './helpers/guide-examples.js';

const WORKLOAD_FLAGS = [
  '--reasoning-tokens',
  '--multi-turn',
  'prefix_repetition',
  '--shared-system-prompt-length',
  'mooncake',
  'timed_trace',
  '--request-cancellation-rate',
  '--probe-request-rate',
  '--per-chunk-usage',
  'anthropic-messages',
  'openai-responses',
  '--dataset-name records',
];

test("each workload has its command in the guide's 'Choosing a workload'", () => {
  const section = docSection(GUIDE, '## Choosing a workload');
  for (const flag of WORKLOAD_FLAGS) assert.ok(section.includes(flag), `a workload command with ${flag}`);
});

testGuideSections(SECTION_GROUPS.workloads);
