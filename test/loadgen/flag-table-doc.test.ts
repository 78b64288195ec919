// docs/loadgen-reference.md's flag table, held to the code both ways: every flag of the pinned `vllm bench serve` is named
// in its first column (itself, or by a wildcard group such as `--sonnet-*`), and every flag that column names is
// one bench accepts, so the page can neither forget a vLLM flag nor document one that does not exist; and every
// flag bench accepts has its row, so a new flag cannot land without one.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { BENCH_OPTIONS } from '../../src/cli/bench-options.js';
import { PINNED_VLLM_COMMIT } from '../../src/cli/vllm-serve-options.js';
import { docSection } from '../helpers/doc-code-blocks.js';
import { VLLM_SERVE_FLAGS } from './helpers/vllm-serve-flag-list.js';

const DOC = readFileSync(new URL('../../../docs/loadgen-reference.md', import.meta.url), 'utf8');
const BENCH_FLAGS = new Set(BENCH_OPTIONS.map((option) => option.name));

interface TableFlags {
  /** Flags named in full, or spelled out from an abbreviation such as `--random-input-len/-output-len`. */
  readonly named: Set<string>;
  /** `--sonnet-*` -> `sonnet-`. */
  readonly wildcards: Set<string>;
  /** Abbreviations that spell out to no bench flag, or to more than one. */
  readonly unresolved: string[];
}

/**
 * `-output-len` after `--random-input-len` is the flag whose name is some leading words of the first one followed
 * by the suffix (`random-output-len`); the page leaves it to the reader to see which words, so the one spelling
 * that is a bench flag is taken, and none or several is an error.
 */
function spellOut(first: string, suffix: string): string | undefined {
  const candidates = [...first.matchAll(/-/g)]
    .map((dash) => first.slice(0, dash.index) + suffix)
    .filter((name) => BENCH_FLAGS.has(name));
  return candidates.length === 1 ? candidates[0] : undefined;
}

function flagsOfTable(): TableFlags {
  const flags: TableFlags = { named: new Set(), wildcards: new Set(), unresolved: [] };
  const rows = docSection(DOC, '## Flags and their vLLM counterparts')
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| flag |') && !line.startsWith('| ---'));
  assert.ok(rows.length > 40, `the table has its rows (${rows.length})`);
  for (const row of rows) {
    const firstColumn = row.split(/(?<!\\)\|/)[1] ?? '';
    for (const [, code] of firstColumn.matchAll(/`([^`]+)`/g)) {
      for (const [, first, rest] of (code ?? '').matchAll(
        /--([a-z][a-z0-9-]*\*?)((?:\/--?[a-z][a-z0-9-]*)*)/g,
      )) {
        const name = first ?? '';
        if (name.endsWith('*')) flags.wildcards.add(name.slice(0, -1));
        else flags.named.add(name);
        for (const part of (rest ?? '').split('/').slice(1)) {
          if (part.startsWith('--')) {
            flags.named.add(part.slice(2));
            continue;
          }
          const spelled = spellOut(name, part);
          if (spelled === undefined) flags.unresolved.push(`--${name}/${part}`);
          else flags.named.add(spelled);
        }
      }
    }
  }
  return flags;
}

test(`every flag of vllm bench serve ${PINNED_VLLM_COMMIT.slice(0, 8)} is in docs/loadgen-reference.md's flag table`, () => {
  const { named, wildcards } = flagsOfTable();
  const missing = VLLM_SERVE_FLAGS.filter(
    (flag) => !named.has(flag) && ![...wildcards].some((group) => flag.startsWith(group)),
  );
  assert.deepEqual(
    missing,
    [],
    `vLLM flags the table does not name: ${missing.map((f) => `--${f}`).join(', ')}`,
  );
});

test('every flag docs/loadgen-reference.md names in its flag table is one bench accepts', () => {
  const { named, wildcards, unresolved } = flagsOfTable();
  assert.deepEqual(unresolved, [], 'each abbreviation spells out to exactly one bench flag');
  const unknown = [...named].filter((flag) => !BENCH_FLAGS.has(flag));
  assert.deepEqual(unknown, [], `flags the table names that bench does not have: ${unknown.join(', ')}`);
  const emptyGroups = [...wildcards].filter(
    (group) => ![...BENCH_FLAGS].some((flag) => flag.startsWith(group)),
  );
  assert.deepEqual(emptyGroups, [], 'each wildcard group matches at least one bench flag');
});

test("every flag bench accepts has its row in docs/loadgen-reference.md's flag table", () => {
  const { named, wildcards } = flagsOfTable();
  const undocumented = [...BENCH_FLAGS].filter(
    (flag) => !named.has(flag) && ![...wildcards].some((group) => flag.startsWith(group)),
  );
  assert.deepEqual(undocumented, [], `bench flags the table does not name: ${undocumented.join(', ')}`);
});
