import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { featureImportsFrom, findCycles, mutualFeatures } from './import-checks.ts';
import { buildImportGraph } from './import-graph.ts';

// `npm run lint`'s import checks over apps/*/src, apps/*/web and packages/*/src: no import cycle (type-only
// imports included), shared code and the gateway's workspace feature import no other feature, and no two feature
// folders of an app import each other. Prints what it finds and exits 1 if anything; silent otherwise.

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Folders whose files import nothing from any other features/ folder. */
export const ISOLATED_FOLDERS = [
  'apps/agent-gateway/src/lib/',
  'apps/agent-gateway/src/clients/',
  'apps/platform-bridge/src/lib/',
  // what the gateway's other features build on: it may use lib/, clients/ and the packages
  'apps/agent-gateway/src/features/workspace/',
];

/** Folders whose feature folders must not import each other. */
export const FEATURE_DIRS = ['apps/agent-gateway/src/features/', 'apps/platform-bridge/src/features/'];

/** The report's lines, one block per check that found something; empty when all pass. */
export function importReport(root: string): string[] {
  const graph = buildImportGraph(root);
  const lines: string[] = [];
  const cycles = findCycles(graph);
  if (cycles.length > 0) {
    lines.push(`${cycles.length} import cycle(s):`, ...cycles.map((c) => `  ${c.join(' -> ')}`));
  }
  const crossing = featureImportsFrom(graph, ISOLATED_FOLDERS);
  if (crossing.length > 0) {
    lines.push(
      `${crossing.length} import(s) of a feature from lib/, clients/ or features/workspace/:`,
      ...crossing.map((v) => `  ${v.from} -> ${v.to}`),
    );
  }
  for (const dir of FEATURE_DIRS) {
    const pairs = mutualFeatures(graph, dir);
    if (pairs.length === 0) continue;
    lines.push(
      `${pairs.length} pair(s) of feature folders in ${dir} importing each other:`,
      ...pairs.map(
        ({ features: [a, b], imports: [there, back] }) =>
          `  ${a} <-> ${b}: ${there.from} -> ${there.to}; ${back.from} -> ${back.to}`,
      ),
    );
  }
  return lines;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const lines = importReport(ROOT);
  if (lines.length > 0) {
    console.error(lines.join('\n'));
    process.exitCode = 1;
  }
}
