// The import layers of docs/architecture.md, held by a test instead of a grep: scripts/structure.js reads every
// source file's imports and this fails on an import circle or an import against the layers, naming the files.
// Its own small trees show that each rule fails when broken, so a green run means the rule held, not that the
// reader saw nothing.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';

interface Figures {
  files: number;
  importCircles: string[][];
  layerViolations: string[];
}

function figuresOf(root?: string): Figures {
  const args = ['scripts/structure.js', '--json', ...(root === undefined ? [] : ['--root', root])];
  return JSON.parse(execFileSync(process.execPath, args, { encoding: 'utf8' })) as Figures;
}

/** A tree of TypeScript files (path -> text) in a fresh temporary folder. */
function treeOf(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'tokenmeter-layers-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

test('the sources have no import circle and no import against the layers', () => {
  const figures = figuresOf();
  assert.ok(figures.files > 300, `read ${figures.files} source files: the reader missed the tree`);
  assert.deepEqual(figures.importCircles, [], 'import circles');
  assert.deepEqual(figures.layerViolations, [], 'imports against the layers');
});

test('an import from a lower layer up into a higher one is found, type-only or not', (t) => {
  const root = treeOf({
    'src/shared/words.ts': "import type { Config } from '../gateway/config.js';\nexport const word = 'a';\n",
    'src/gateway/config.ts':
      "import { word } from '../shared/words.js';\nexport interface Config { w: typeof word }\n",
    'src/measure/meter.ts': "export const meter = await import('../sim/clock.js');\n",
    'src/sim/clock.ts': 'export const now = 0;\n',
  });
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const { layerViolations } = figuresOf(root);
  assert.deepEqual(layerViolations, [
    'src/measure/meter.ts -> src/sim/clock.ts (src/measure may import only layers below its own)',
    'src/shared/words.ts -> src/gateway/config.ts (src/shared may import only layers below its own)',
  ]);
});

test('a circle of imports is found, and folders beside each other in one layer may not import each other', (t) => {
  const root = treeOf({
    'loadgen/a/one.ts': "import { two } from '../b/two.js';\nexport const one = two;\n",
    'loadgen/b/two.ts': "import type { three } from './three.js';\nexport const two = 2;\n",
    'loadgen/b/three.ts': "export { one as three } from '../a/one.js';\n",
    'src/gateway/proxy.ts': "import { clock } from '../sim/clock.js';\nexport const proxy = clock;\n",
    'src/sim/clock.ts': 'export const clock = 0;\n',
  });
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const figures = figuresOf(root);
  assert.deepEqual(figures.importCircles, [['loadgen/a/one.ts', 'loadgen/b/three.ts', 'loadgen/b/two.ts']]);
  assert.deepEqual(figures.layerViolations, [
    'src/gateway/proxy.ts -> src/sim/clock.ts (src/gateway may import only layers below its own)',
  ]);
});
