import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

// The import graph of the repository's TypeScript sources: which .ts/.tsx file imports which. Every import counts,
// type-only ones included (a type import still ties two modules together), as do re-exports and dynamic imports.
// Relative specifiers resolve to files; a workspace package's name (@pa/contracts, @pa/http-kit/testing, ...)
// resolves through its package.json `exports` to its source. Anything else (npm packages, node:) is outside the
// graph. Paths are relative to the root, with forward slashes.

/** file -> the files it imports, both relative to the root */
export type ImportGraph = Map<string, Set<string>>;

/** Where the sources are: apps/<app>/src, apps/<app>/web and packages/<package>/src. */
const SOURCE_ROOTS: ReadonlyArray<readonly [string, string]> = [
  ['apps', 'src'],
  ['apps', 'web'],
  ['packages', 'src'],
];
const SKIPPED_DIRS = new Set(['node_modules', 'generated']);
const SOURCE_FILE = /\.tsx?$/;

const toPosix = (p: string) => p.split(path.sep).join('/');
const subdirs = (dir: string) =>
  existsSync(dir)
    ? readdirSync(dir, { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => d.name)
        .sort()
    : [];

function walk(dir: string, out: string[]): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name)) walk(full, out);
    } else if (SOURCE_FILE.test(entry.name) && !entry.name.endsWith('.d.ts')) {
      out.push(full);
    }
  }
}

/** The source files under the root, relative to it, sorted. */
export function sourceFiles(root: string): string[] {
  const files: string[] = [];
  for (const [group, folder] of SOURCE_ROOTS) {
    for (const name of subdirs(path.join(root, group))) {
      const dir = path.join(root, group, name, folder);
      if (existsSync(dir)) walk(dir, files);
    }
  }
  return files.map((f) => toPosix(path.relative(root, f))).sort();
}

/** Each workspace package's entry points: `@pa/http-kit/testing` -> `packages/http-kit/src/testing/index.ts`. */
export function workspaceEntries(root: string): Map<string, string> {
  const entries = new Map<string, string>();
  for (const group of ['apps', 'packages']) {
    for (const name of subdirs(path.join(root, group))) {
      const manifest = path.join(root, group, name, 'package.json');
      if (!existsSync(manifest)) continue;
      const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; exports?: unknown };
      if (!pkg.name || !pkg.exports) continue;
      const exportsMap =
        typeof pkg.exports === 'string' ? { '.': pkg.exports } : (pkg.exports as Record<string, unknown>);
      for (const [subpath, target] of Object.entries(exportsMap)) {
        if (typeof target !== 'string') continue;
        const specifier = subpath === '.' ? pkg.name : `${pkg.name}/${subpath.replace(/^\.\//, '')}`;
        entries.set(specifier, toPosix(path.join(group, name, target)));
      }
    }
  }
  return entries;
}

const isFile = (p: string) => existsSync(p) && statSync(p).isFile();

/** A relative specifier as the file it names: as written, else with .ts/.tsx or as a folder's index. */
function resolveRelative(root: string, from: string, specifier: string): string | undefined {
  const base = path.resolve(root, path.dirname(from), specifier);
  const candidates = [
    base,
    `${base}.ts`,
    `${base}.tsx`,
    path.join(base, 'index.ts'),
    path.join(base, 'index.tsx'),
  ];
  const found = candidates.find(isFile);
  return found && toPosix(path.relative(root, found));
}

/** The specifiers a file imports, as written (comments and strings are not imports). */
export function specifiersOf(text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
}

/** The import graph of the source files under `root`; imports of files outside the sources are left out. */
export function buildImportGraph(root: string): ImportGraph {
  const files = sourceFiles(root);
  const known = new Set(files);
  const packages = workspaceEntries(root);
  const graph: ImportGraph = new Map();
  for (const file of files) {
    const targets = new Set<string>();
    for (const specifier of specifiersOf(readFileSync(path.join(root, file), 'utf8'))) {
      const target = specifier.startsWith('.')
        ? resolveRelative(root, file, specifier)
        : packages.get(specifier);
      if (target && known.has(target)) targets.add(target);
    }
    graph.set(file, targets);
  }
  return graph;
}
