// The docs' flag tables, written from the commands' option schemas (scripts/option-tables.js writes them; the
// test option-tables-doc.test.ts fails when a page disagrees). Each table sits between two markers naming it, so
// a page can move it anywhere and the generator still finds it.
import { markdownOptionTable, type OptionSpec } from '../shared/option-schema.js';
import { BENCH_OPTIONS } from './bench-options.js';
import { SWEEP_OWN_OPTIONS } from './sweep-command.js';

export interface OptionTable {
  /** The page, relative to the repository root. */
  readonly doc: string;
  /** The name in its markers. */
  readonly name: string;
  readonly specs: readonly OptionSpec[];
}

export const OPTION_TABLES: readonly OptionTable[] = [
  { doc: 'docs/loadgen-reference.md', name: 'bench', specs: BENCH_OPTIONS },
  { doc: 'docs/loadgen-reference.md', name: 'sweep', specs: SWEEP_OWN_OPTIONS },
];

const begin = (name: string): string =>
  `<!-- option table ${name}: written by scripts/option-tables.js from the option schema; do not edit -->`;
const end = (name: string): string => `<!-- end of option table ${name} -->`;

/** The table as the page holds it, markers included. */
export function tableBlock(table: OptionTable): string {
  return `${begin(table.name)}\n${markdownOptionTable(table.specs)}\n${end(table.name)}`;
}

/** The block the page holds now, or undefined when it has no markers for this table. */
export function blockInPage(page: string, name: string): string | undefined {
  const from = page.indexOf(begin(name));
  const to = page.indexOf(end(name), from);
  return from < 0 || to < 0 ? undefined : page.slice(from, to + end(name).length);
}

/** The page with the table's block written anew (at the end, under a heading, when it has none yet). */
export function withTable(page: string, table: OptionTable): string {
  const current = blockInPage(page, table.name);
  if (current !== undefined) return page.replace(current, () => tableBlock(table));
  return `${page.trimEnd()}\n\n### \`${table.name}\` flags\n\n${tableBlock(table)}\n`;
}
