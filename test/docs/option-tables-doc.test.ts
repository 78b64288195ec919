// The docs' flag tables against the option schemas: each page holds every table src/cli/option-tables.ts names,
// between its markers, exactly as the schema writes it (a flag, default or help line changed in the code without
// `node scripts/option-tables.js` fails here, naming the table); the hand-written tables of the simulator's and
// the gateway's flags name the schema's flags, config fields or variables, and defaults; and the tables of the
// gateway's config file name its document schema's fields and defaults.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { blockInPage, OPTION_TABLES, tableBlock } from '../../src/cli/option-tables.js';
import { SERVE_OPTIONS } from '../../src/cli/serve-command.js';
import { SIM_OPTIONS } from '../../src/cli/sim-command.js';
import { GATEWAY_CONFIG } from '../../src/gateway/config/config.js';
import { type ConfigField, configKey, type OptionSpec } from '../../src/shared/option-schema.js';

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

/** The rows of the first table under `heading` (up to the next heading) whose first cell is one `field`. */
function fieldRows(doc: string, heading: string): string[][] {
  const page = readFileSync(new URL(`../../../${doc}`, import.meta.url), 'utf8');
  const from = page.indexOf(`\n${heading}\n`);
  assert.ok(from >= 0, `${doc} has the section ${heading}`);
  const next = page.indexOf('\n#', from + heading.length + 2);
  return page
    .slice(from, next < 0 ? undefined : next)
    .split('\n')
    .filter((line) => /^\| `[\w.]+` \|/.test(line))
    .map((line) =>
      line
        .split(/(?<!\\)\|/)
        .slice(1, -1)
        .map((cell, i) => (i === 0 ? cell.trim().slice(1, -1) : cell.trim())),
    );
}

/** The fields of the section at `path` in the gateway's document (`upstreams`: each upstream's). */
function sectionAt(path: readonly string[]): readonly ConfigField[] {
  let field: ConfigField | undefined = GATEWAY_CONFIG;
  for (const key of path) {
    const inner: ConfigField | undefined = field?.fields?.find((f) => f.key === key);
    field = inner?.item ?? inner;
  }
  return field?.fields ?? [];
}

/** Each field under `fields` by its dotted key, a section's own fields included. */
function byKey(fields: readonly ConfigField[], prefix = ''): Map<string, ConfigField> {
  return new Map(
    fields.flatMap((f) => [
      [`${prefix}${f.key}`, f] as const,
      ...(f.type === 'section' ? byKey(f.fields ?? [], `${prefix}${f.key}.`) : []),
    ]),
  );
}

/**
 * A table of the config file's fields names every field of its section (sections' own rows optional) and no
 * other, and states each default the schema has, in backquotes in its second column.
 */
function holdsFields(heading: string, path: readonly string[]): void {
  const fields = byKey(sectionAt(path));
  const rows = fieldRows('docs/configuration.md', heading);
  const named = rows.map((row) => row[0] ?? '');
  const where = `docs/configuration.md ${heading}`;
  assert.deepEqual(
    named.filter((key) => !fields.has(key)),
    [],
    `${where}: fields the schema does not have`,
  );
  assert.deepEqual(
    [...fields].filter(([key, f]) => f.type !== 'section' && !named.includes(key)).map(([key]) => key),
    [],
    `${where}: fields the table leaves out`,
  );
  for (const [key, value] of rows) {
    const stated = fields.get(key ?? '')?.default;
    if (stated === undefined) continue;
    assert.ok(
      (value ?? '').includes(`\`${String(stated)}\``),
      `${where}: ${key}'s default is ${String(stated)} (the page says ${value})`,
    );
  }
}

test("docs/configuration.md's tables of the config file state the document schema's fields and defaults", () => {
  holdsFields('### Top level', []);
  holdsFields('### Upstreams', ['upstreams']);
  holdsFields('### Mirroring', ['upstreams', 'models', 'mirror']);
});
