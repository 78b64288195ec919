#!/usr/bin/env node
// The codebase's shape, counted: `node scripts/structure.js` (add `--json` for the figures as one object).
//
// It reads the TypeScript sources under src/, plugins/ and loadgen/ (not tests, not bench/) and prints the figures
// issue 29 tracks for the load generator's restructuring, so anyone can rerun them before and after a change:
//   - import circles: strongly connected groups of files that import each other, type-only imports included;
//   - imports against the layers (LAYERS below; test/structure/layers.test.ts fails on any, and on a circle);
//   - imports from a lower loadgen folder back up into loadgen/bench/ (only sweep/ and shards/ sit above it);
//   - files naming each optional feature of bench (by the identifiers that carry it), anywhere and in code only;
//   - lines of option and settings plumbing (the files whose name says options, settings or config);
//   - files under 40 lines;
//   - files that read a protocol's token usage out of an answer, and for each protocol the ones its descriptor
//     reaches (one each: its stream classifier and its non-streamed answer reader share one usage reader).
// It reads files only; it changes nothing and needs no build.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const SOURCE_FOLDERS = ['src', 'plugins', 'loadgen'];

/** Every .ts file under the source folders, as repo-relative paths with forward slashes. */
export function sourceFiles(repoRoot = root) {
  const files = [];
  for (const folder of SOURCE_FOLDERS) {
    if (!existsSync(join(repoRoot, folder))) continue;
    for (const entry of readdirSync(join(repoRoot, folder), { withFileTypes: true, recursive: true })) {
      if (entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) {
        files.push(
          relative(repoRoot, join(entry.parentPath ?? entry.path, entry.name))
            .split('\\')
            .join('/'),
        );
      }
    }
  }
  return files.sort();
}

// Static imports and re-exports (`import ... from '...'`, `export ... from '...'`, `import '...'`) and dynamic
// `import('...')` with a literal specifier. Comments are not stripped: the sources do not quote import lines.
// Type-only imports count: a circle of types is still a circle a reader has to hold in their head.
const IMPORT_PATTERN = /(?:^|\n)\s*(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s*)?['"]([^'"]+)['"]/g;
const DYNAMIC_IMPORT_PATTERN = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The repo-relative .ts files one source file imports (package imports left out). */
export function importsOf(file, text) {
  const targets = new Set();
  for (const pattern of [IMPORT_PATTERN, DYNAMIC_IMPORT_PATTERN]) {
    for (const match of text.matchAll(pattern)) {
      const specifier = match[1];
      if (!specifier.startsWith('.')) continue;
      targets.add(
        normalize(join(dirname(file), specifier))
          .split('\\')
          .join('/')
          .replace(/\.js$/, '.ts'),
      );
    }
  }
  return [...targets];
}

/** The import graph: file -> the files it imports, among the sources. */
export function importGraph(repoRoot = root) {
  const files = sourceFiles(repoRoot);
  const known = new Set(files);
  const texts = new Map(files.map((file) => [file, readFileSync(join(repoRoot, file), 'utf8')]));
  const graph = new Map();
  for (const file of files) {
    graph.set(
      file,
      importsOf(file, texts.get(file)).filter((target) => known.has(target)),
    );
  }
  return { graph, texts };
}

/** Tarjan's strongly connected components with more than one file, or a file importing itself. */
export function importCircles(graph) {
  let counter = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const circles = [];
  // Iterative, so a deep chain of imports cannot overflow the call stack.
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work = [[start, 0]];
    index.set(start, counter);
    low.set(start, counter);
    counter += 1;
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      const [node, next] = frame;
      const targets = graph.get(node);
      if (next < targets.length) {
        frame[1] += 1;
        const target = targets[next];
        if (!index.has(target)) {
          index.set(target, counter);
          low.set(target, counter);
          counter += 1;
          stack.push(target);
          onStack.add(target);
          work.push([target, 0]);
        } else if (onStack.has(target)) {
          low.set(node, Math.min(low.get(node), index.get(target)));
        }
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1][0];
        low.set(parent, Math.min(low.get(parent), low.get(node)));
      }
      if (low.get(node) === index.get(node)) {
        const members = [];
        let member;
        do {
          member = stack.pop();
          onStack.delete(member);
          members.push(member);
        } while (member !== node);
        if (members.length > 1 || graph.get(node).includes(node)) circles.push(members.sort());
      }
    }
  }
  return circles;
}

// The loadgen folders that run whole bench runs, and so sit above loadgen/bench/: a sweep runs one a level, shards
// run its share of one. Every other loadgen folder serves a run and should not reach back into it.
const ABOVE_BENCH = /^loadgen\/(bench|sweep|shards)\//;

/** Imports from a loadgen folder below bench/ (not sweep/ or shards/) up into loadgen/bench/. */
function importsUpIntoBench(graph) {
  const found = [];
  for (const [file, targets] of graph) {
    if (!file.startsWith('loadgen/') || ABOVE_BENCH.test(file)) continue;
    for (const target of targets) {
      if (target.startsWith('loadgen/bench/')) found.push(`${file} -> ${target}`);
    }
  }
  return found;
}

// The identifiers that carry each optional feature of bench through the code: a file that names one of them has
// to change when the feature does.
const FEATURE_NAMES = {
  cancellation: /cancellation|cancelledRequests|CancelledRequests/,
  'server metrics': /serverMetrics|ServerMetrics|server_metrics/,
  breakdown: /breakdown|Breakdown/,
  'early stop': /earlyStop|EarlyStop|early_stop|stopOnSaturation/,
};

// A comment that names a feature (why a stream outcome exists, which flag a figure serves) does not have to change
// with the feature; code does. Both counts are printed: everywhere, and in code only (comments removed, strings
// kept: a JSON key or a flag name in a string is code that changes with the feature).
const COMMENT = /\/\*[\s\S]*?\*\/|(^|[^:'"`\\])\/\/[^\n]*/g;

function withoutComments(text) {
  return text.replace(COMMENT, (_match, before) => before ?? '');
}

/** Files whose name says they turn flags, config files or defaults into settings. */
const PLUMBING_FILE = /(option|settings|config)[^/]*\.ts$/;

// Reading token usage out of an answer: a code line (not a comment) naming the usage object's output count as a
// string, as the readers pass it to the field lookups, in the parts that read answers (the simulator writes usage;
// a dataset's or top's fields of the same name are not answers).
const ANSWER_READERS = /^(src\/(measure|protocols|gateway|doctor)|loadgen\/(engine|bench))\//;
const USAGE_READ = /^(?!\s*(\/\/|\*|\/\*)).*['"](completion_tokens|output_tokens)['"]/m;
// Each protocol's object, in its own folder (src/protocols/<protocol>/descriptor.ts): what it reaches through its
// imports is everything that reads its answers, streamed or not.
const DESCRIPTOR = /^src\/protocols\/([^/]+)\/descriptor\.ts$/;

/** The files `start` imports, directly or through others. */
function reachableFrom(graph, start) {
  const seen = new Set([start]);
  const work = [start];
  while (work.length > 0) {
    for (const target of graph.get(work.pop())) {
      if (!seen.has(target)) {
        seen.add(target);
        work.push(target);
      }
    }
  }
  return seen;
}

/** For each protocol (by its folder), the usage-reading files its descriptor reaches. */
function usageReadersByProtocol(graph, readers) {
  const byProtocol = {};
  for (const file of graph.keys()) {
    const protocol = DESCRIPTOR.exec(file)?.[1];
    if (protocol === undefined) continue;
    const reached = reachableFrom(graph, file);
    byProtocol[protocol] = readers.filter((reader) => reached.has(reader));
  }
  return byProtocol;
}

// The layers, lowest first: a folder may import its own files and the folders of layers below its own, nothing
// beside or above it. Within loadgen/, the folders below bench/ never reach up into it (importsUpIntoBench).
const LAYERS = [
  ['src/shared', 'src/sse'],
  ['src/measure'],
  ['src/protocols'],
  ['src/tracing/receiver', 'src/tracing'],
  ['src/gateway', 'src/sim'],
  ['loadgen', 'plugins', 'src/doctor', 'src/top', 'src/client-config'],
  ['src/cli'],
];

/** The folder of LAYERS a file belongs to (the longest that prefixes it). */
function layerFolder(file) {
  let best = null;
  for (const folder of LAYERS.flat()) {
    if (file.startsWith(`${folder}/`) && (best === null || folder.length > best.length)) best = folder;
  }
  return best;
}

const LAYER_OF = new Map(LAYERS.flatMap((folders, rank) => folders.map((folder) => [folder, rank])));

/** Every import against the layers, as "importer -> imported (why)". */
export function layerViolations(graph) {
  const found = [];
  for (const [file, targets] of graph) {
    const from = layerFolder(file);
    if (from === null) {
      found.push(`${file} is in no layer: add its folder to LAYERS in scripts/structure.js`);
      continue;
    }
    for (const target of targets) {
      const to = layerFolder(target);
      if (to === null || to === from) continue;
      if (LAYER_OF.get(to) >= LAYER_OF.get(from)) {
        found.push(`${file} -> ${target} (${from} may import only layers below its own)`);
      }
    }
  }
  return found;
}

export function structureFigures(repoRoot = root) {
  const { graph, texts } = importGraph(repoRoot);
  const files = [...graph.keys()];
  const lineCount = (file) => texts.get(file).split('\n').length - (texts.get(file).endsWith('\n') ? 1 : 0);
  const features = {};
  const featuresInCode = {};
  for (const [feature, pattern] of Object.entries(FEATURE_NAMES)) {
    features[feature] = files.filter((file) => pattern.test(texts.get(file))).length;
    featuresInCode[feature] = files.filter((file) => pattern.test(withoutComments(texts.get(file)))).length;
  }
  const usageReaders = files.filter((file) => ANSWER_READERS.test(file) && USAGE_READ.test(texts.get(file)));
  const plumbing = files.filter((file) => PLUMBING_FILE.test(file) && !file.startsWith('src/sim/protocols/'));
  return {
    files: files.length,
    importCircles: importCircles(graph),
    layerViolations: layerViolations(graph),
    importsUpIntoBench: importsUpIntoBench(graph),
    filesNamingFeature: features,
    filesNamingFeatureInCode: featuresInCode,
    optionPlumbing: {
      lines: plumbing.reduce((sum, file) => sum + lineCount(file), 0),
      files: plumbing,
    },
    filesUnder40Lines: files.filter((file) => lineCount(file) < 40).length,
    usageReaders,
    usageReadersByProtocol: usageReadersByProtocol(graph, usageReaders),
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === normalize(process.argv[1])) {
  // --root DIR reads another tree laid out like this one (the layering test's own small trees).
  const rootAt = process.argv.indexOf('--root');
  const figures = structureFigures(rootAt > 0 ? process.argv[rootAt + 1] : root);
  if (process.argv.includes('--json')) {
    console.log(JSON.stringify(figures, null, 2));
  } else {
    console.log(`source files                          ${figures.files}`);
    console.log(`import circles                        ${figures.importCircles.length}`);
    for (const circle of figures.importCircles) console.log(`  ${circle.join(' <-> ')}`);
    console.log(`imports against the layers            ${figures.layerViolations.length}`);
    for (const violation of figures.layerViolations) console.log(`  ${violation}`);
    console.log(`imports up into loadgen/bench/        ${figures.importsUpIntoBench.length}`);
    for (const edge of figures.importsUpIntoBench) console.log(`  ${edge}`);
    for (const [feature, count] of Object.entries(figures.filesNamingFeature)) {
      const inCode = figures.filesNamingFeatureInCode[feature];
      console.log(`files naming ${feature.padEnd(25)}${String(count).padEnd(4)}(in code: ${inCode})`);
    }
    console.log(
      `option and settings plumbing         ${figures.optionPlumbing.lines} lines in ${figures.optionPlumbing.files.length} files`,
    );
    console.log(`files under 40 lines                  ${figures.filesUnder40Lines}`);
    console.log(`files reading answer usage            ${figures.usageReaders.length}`);
    for (const file of figures.usageReaders) console.log(`  ${file}`);
    const protocols = Object.entries(figures.usageReadersByProtocol);
    const oneEach = protocols.filter(([, readers]) => readers.length === 1).length;
    console.log(`protocols with one usage reader       ${oneEach} of ${protocols.length}`);
    for (const [protocol, readers] of protocols) {
      console.log(`  ${protocol.padEnd(20)}${readers.length === 0 ? '(none)' : readers.join(', ')}`);
    }
  }
}
