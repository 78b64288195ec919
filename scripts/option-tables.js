#!/usr/bin/env node
// Writes the docs' flag tables from the commands' option schemas (src/cli/option-tables.ts), between their
// markers: `npm run build && node scripts/option-tables.js`. With --check it changes nothing and exits 1 when a
// page differs, naming it. Reads the built modules in dist/, so build first.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { OPTION_TABLES, withTable } = await import(join(root, 'dist/src/cli/option-tables.js'));
const check = process.argv.includes('--check');
let stale = 0;
for (const doc of new Set(OPTION_TABLES.map((table) => table.doc))) {
  const path = join(root, doc);
  const page = readFileSync(path, 'utf8');
  const written = OPTION_TABLES.filter((table) => table.doc === doc).reduce(withTable, page);
  if (written === page) continue;
  stale += 1;
  if (check)
    console.error(`${doc}: its flag tables differ from the option schemas (node scripts/option-tables.js)`);
  else writeFileSync(path, written);
}
process.exit(check && stale > 0 ? 1 : 0);
