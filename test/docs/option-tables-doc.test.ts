// The docs' flag tables against the option schemas: each page holds every table src/cli/option-tables.ts names,
// between its markers, exactly as the schema writes it (a flag, default or help line changed in the code without
// `node scripts/option-tables.js` fails here, naming the table); and the hand-written tables of the simulator's and
// the gateway's flags name the schema's flags, config fields or variables, and defaults.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { blockInPage, OPTION_TABLES, tableBlock } from '../../src/cli/option-tables.js';
import { SERVE_OPTIONS } from '../../src/cli/serve-command.js';
import { SIM_OPTIONS } from '../../src/cli/sim-command.js';
import { configKey, type OptionSpec } from '../../src/shared/option-schema.js';

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

/** The rows of the first table under `heading` whose first cell names a flag, as their cells. */
function flagRows(doc: string, heading: string): string[][] {
  const page = readFileSync(new URL(`../../../${doc}`, import.meta.url), 'utf8');
  const from = page.indexOf(`\n${heading}\n`);
  assert.ok(from >= 0, `${doc} has the section ${heading}`);
  const next = page.indexOf('\n## ', from + heading.length + 2);
  return page
    .slice(from, next < 0 ? undefined : next)
    .split('\n')
    .filter((line) => line.startsWith('| `--'))
    .map((line) =>
      line
        .split(/(?<!\\)\|/)
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
}

/** The flag a first cell names: `--port PORT` -> port. */
const flagOf = (cell: string): string => /^`--([a-z0-9-]+)/.exec(cell)?.[1] ?? cell;

/**
 * The hand-written tables of the simulator's and the gateway's flags explain more than a help line, so the page
 * keeps its own words; what it states as a fact of the schema (which flags, their config field or environment
 * variable, their default) is held to the schema here, both ways.
 */
function holdsFacts(doc: string, heading: string, specs: readonly OptionSpec[], column: 'key' | 'env'): void {
  const rows = flagRows(doc, heading);
  assert.deepEqual(
    rows.map((row) => flagOf(row[0] ?? '')).sort(),
    specs.map((spec) => spec.name).sort(),
    `${doc}: its table's flags are the schema's`,
  );
  for (const row of rows) {
    const spec = specs.find((s) => s.name === flagOf(row[0] ?? ''));
    if (spec === undefined) continue;
    const second = row[1] ?? '';
    if (column === 'key' && spec.name !== 'config')
      assert.equal(second, `\`${configKey(spec)}\``, `${doc}: --${spec.name}'s config field`);
    if (column === 'env' && spec.env !== undefined)
      assert.equal(second, `\`${spec.env}\``, `${doc}: --${spec.name}'s environment variable`);
    if (spec.default !== undefined && spec.default !== false && spec.default !== '')
      assert.ok(
        (row[2] ?? '').includes(`\`${String(spec.default)}\``),
        `${doc}: --${spec.name}'s default is ${String(spec.default)} (the page says ${row[2]})`,
      );
  }
}

test("docs/simulator.md's flag table states the simulator schema's flags, config fields and defaults", () => {
  holdsFacts('docs/simulator.md', '## Flags (and the config file)', SIM_OPTIONS, 'key');
});

test("docs/configuration.md's flag table states the gateway schema's flags, variables and defaults", () => {
  holdsFacts('docs/configuration.md', '## Command line', SERVE_OPTIONS, 'env');
});
