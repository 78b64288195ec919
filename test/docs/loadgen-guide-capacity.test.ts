// docs/loadgen.md's sweeps, comparisons and sharded runs run as written (test/docs/helpers/guide-examples.ts says
// how).
import { SECTION_GROUPS, testGuideSections } from './helpers/guide-examples.js';

testGuideSections(SECTION_GROUPS.capacity);
