import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { featureImportsFrom, findCycles, mutualFeatures } from '../scripts/lint/import-checks.ts';
import { importReport } from '../scripts/lint/import-cycles.ts';
import { buildImportGraph } from '../scripts/lint/import-graph.ts';

// The lint step's import checks (scripts/lint/import-cycles.ts) on small trees written for each test.

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A repository-shaped tree of the given files (path -> content) in a fresh temporary folder. */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'import-cycles-'));
  dirs.push(root);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  return root;
}

const pkg = (name: string, exports: Record<string, string>) => JSON.stringify({ name, exports });

const CLEAN = {
  'packages/kit/package.json': pkg('@pa/kit', { '.': './src/index.ts', './testing': './src/testing.ts' }),
  'packages/kit/src/index.ts': "export * from './errors.ts';\n",
  'packages/kit/src/errors.ts': 'export class Oops extends Error {}\n',
  'packages/kit/src/testing.ts': "import { Oops } from '@pa/kit';\nexport const oops = () => new Oops();\n",
  'apps/one/src/app.ts': "import { run } from './features/chat/chat.ts';\nimport { Oops } from '@pa/kit';\n",
  'apps/one/src/features/chat/chat.ts':
    "import type { Clock } from '../../lib/clock.ts';\nexport const run = (c: Clock) => c;\n",
  'apps/one/src/lib/clock.ts':
    "// import { run } from '../features/chat/chat.ts';\nexport const s = \"import './x.ts'\";\nexport type Clock = () => Date;\n",
  'apps/one/web/page.ts': "import { oops } from '@pa/kit/testing';\n",
};

describe('import cycles', () => {
  it('finds none in a tree without one (comments and strings that look like imports are not imports)', () => {
    const root = tree(CLEAN);
    const graph = buildImportGraph(root);
    expect(graph.get('apps/one/web/page.ts')).toEqual(new Set(['packages/kit/src/testing.ts']));
    expect(graph.get('apps/one/src/lib/clock.ts')).toEqual(new Set());
    expect(findCycles(graph)).toEqual([]);
    expect(importReport(root)).toEqual([]);
  });

  it('finds each cycle, type-only imports and workspace package names included, from its first file', () => {
    const root = tree({
      ...CLEAN,
      // two files through a type-only import
      'apps/one/src/cli/commands.ts':
        "import { hooks } from './webhook-commands.ts';\nexport type Options = {};\n",
      'apps/one/src/cli/webhook-commands.ts':
        "import type { Options } from './commands.ts';\nexport const hooks: Options = {};\n",
      // three files, one step through the package's own name
      'packages/kit/src/errors.ts': "import { log } from './log.ts';\nexport class Oops extends Error {}\n",
      'packages/kit/src/log.ts': "export { oops } from './testing.ts';\nexport const log = 1;\n",
    });
    expect(findCycles(buildImportGraph(root))).toEqual([
      [
        'apps/one/src/cli/commands.ts',
        'apps/one/src/cli/webhook-commands.ts',
        'apps/one/src/cli/commands.ts',
      ],
      [
        'packages/kit/src/errors.ts',
        'packages/kit/src/log.ts',
        'packages/kit/src/testing.ts',
        'packages/kit/src/index.ts',
        'packages/kit/src/errors.ts',
      ],
    ]);
    expect(importReport(root).slice(0, 3)).toEqual([
      '2 import cycle(s):',
      '  apps/one/src/cli/commands.ts -> apps/one/src/cli/webhook-commands.ts -> apps/one/src/cli/commands.ts',
      '  packages/kit/src/errors.ts -> packages/kit/src/log.ts -> packages/kit/src/testing.ts -> ' +
        'packages/kit/src/index.ts -> packages/kit/src/errors.ts',
    ]);
  });

  it('names every import that closes a cycle, once per cycle', () => {
    // a -> b -> a and a -> c -> a share a; b -> c is on no cycle of its own but closes a -> b -> c -> a
    const root = tree({
      'apps/one/src/a.ts': "import './b.ts';\nimport './c.ts';\n",
      'apps/one/src/b.ts': "import './a.ts';\nimport './c.ts';\n",
      'apps/one/src/c.ts': "import './a.ts';\n",
      'apps/one/src/self.ts': "import type { X } from './self.ts';\nexport type X = 1;\n",
    });
    expect(findCycles(buildImportGraph(root)).map((c) => c.map((f) => path.basename(f)))).toEqual([
      ['self.ts', 'self.ts'],
      ['a.ts', 'b.ts', 'a.ts'],
      ['a.ts', 'c.ts', 'a.ts'],
      ['a.ts', 'b.ts', 'c.ts', 'a.ts'],
    ]);
  });
});

describe('feature boundaries', () => {
  const GATEWAY = 'apps/agent-gateway/src';
  const files = {
    [`${GATEWAY}/lib/retry.ts`]: "import { chat } from '../features/chat/chat.ts';\n",
    [`${GATEWAY}/clients/bridge.ts`]: "import { retry } from '../lib/retry.ts';\n",
    [`${GATEWAY}/features/workspace/workspace.ts`]:
      "import { retry } from '../../lib/retry.ts';\nimport { bridge } from '../../clients/bridge.ts';\n" +
      "import { own } from './own.ts';\nimport { chat } from '../chat/chat.ts';\n",
    [`${GATEWAY}/features/workspace/own.ts`]: 'export const own = 1;\n',
    [`${GATEWAY}/features/chat/chat.ts`]:
      "import { sessions } from '../sessions/sessions.ts';\nimport { own } from '../workspace/own.ts';\n",
    [`${GATEWAY}/features/chat/reply.ts`]: 'export const reply = 1;\n',
    // sessions uses chat's other file: no file cycle, yet the folders depend on each other
    [`${GATEWAY}/features/sessions/sessions.ts`]: "import { reply } from '../chat/reply.ts';\n",
    [`${GATEWAY}/features/app-routes.ts`]: "import { chat } from './chat/chat.ts';\n",
  };

  it('lists the imports of a feature from lib/, clients/ and the isolated feature folder', () => {
    const graph = buildImportGraph(tree(files));
    expect(featureImportsFrom(graph, [`${GATEWAY}/lib/`, `${GATEWAY}/features/workspace/`])).toEqual([
      { from: `${GATEWAY}/features/workspace/workspace.ts`, to: `${GATEWAY}/features/chat/chat.ts` },
      { from: `${GATEWAY}/lib/retry.ts`, to: `${GATEWAY}/features/chat/chat.ts` },
    ]);
  });

  it('counts the pairs of feature folders that import each other', () => {
    const root = tree(files);
    const graph = buildImportGraph(root);
    expect(findCycles(graph)).toEqual([]);
    expect(mutualFeatures(graph, `${GATEWAY}/features/`)).toEqual([
      {
        features: ['chat', 'sessions'],
        imports: [
          { from: `${GATEWAY}/features/chat/chat.ts`, to: `${GATEWAY}/features/sessions/sessions.ts` },
          { from: `${GATEWAY}/features/sessions/sessions.ts`, to: `${GATEWAY}/features/chat/reply.ts` },
        ],
      },
      {
        features: ['chat', 'workspace'],
        imports: [
          { from: `${GATEWAY}/features/chat/chat.ts`, to: `${GATEWAY}/features/workspace/own.ts` },
          { from: `${GATEWAY}/features/workspace/workspace.ts`, to: `${GATEWAY}/features/chat/chat.ts` },
        ],
      },
    ]);
    expect(importReport(root)).toContain(
      `2 pair(s) of feature folders in ${GATEWAY}/features/ importing each other:`,
    );
  });
});
