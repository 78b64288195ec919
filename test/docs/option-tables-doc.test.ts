// The docs' flag tables are the option schemas': each page holds every table src/cli/option-tables.ts names,
// between its markers, exactly as the schema writes it. A flag, default or help line changed in the code without
// `node scripts/option-tables.js` fails here, naming the table.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { blockInPage, OPTION_TABLES, tableBlock } from '../../src/cli/option-tables.js';

for (const table of OPTION_TABLES) {
  test(`${table.doc} holds the ${table.name} flag table its schema writes`, () => {
    const page = readFileSync(new URL(`../../../${table.doc}`, import.meta.url), 'utf8');
    const block = blockInPage(page, table.name);
    assert.ok(block !== undefined, `${table.doc} has no markers for the ${table.name} table`);
    assert.equal(
      block,
      tableBlock(table),
      `${table.doc}: run npm run build && node scripts/option-tables.js`,
    );
  });
}
