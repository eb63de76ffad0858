import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveDataKey } from '../src/data-key.ts';

// The generated data key (an app without its *_SECRET_KEY setting): made once, kept 0600, and the same for every
// process that starts on a fresh data directory at the same moment — the gateway and its worker, an app and its
// CLI, parallel tests. None of them may read a half-written file.

const MODULE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src/data-key.ts');
const dirs: string[] = [];
const freshDir = () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pa-data-key-'));
  dirs.push(dir);
  return path.join(dir, 'data');
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Resolves the key in a separate Node process; its hex, or its error. */
function resolveInChild(dataDir: string): Promise<string> {
  const script = `import { resolveDataKey } from ${JSON.stringify(MODULE)};
process.stdout.write(resolveDataKey(undefined, ${JSON.stringify(dataDir)}, { name: 'TEST_KEY', file: 'test.key' }).key.toString('hex'));`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.stderr.on('data', (d: Buffer) => (err += d));
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}: ${err}`))));
  });
}

describe('resolveDataKey', () => {
  it('generates a key once, 0600, and reads the same key back', () => {
    const dir = freshDir();
    const first = resolveDataKey(undefined, dir, { name: 'TEST_KEY', file: 'test.key' });
    expect(first.generated).toBe(true);
    expect(first.key).toHaveLength(32);
    expect(statSync(path.join(dir, 'test.key')).mode & 0o777).toBe(0o600);
    expect(resolveDataKey(undefined, dir, { name: 'TEST_KEY', file: 'test.key' }).key).toEqual(first.key);
    expect(readdirSync(dir)).toEqual(['test.key']);
  });

  it('twelve processes starting at once on a fresh directory all get the one key, and leave no drafts', async () => {
    const dir = freshDir();
    const keys = await Promise.all(Array.from({ length: 12 }, () => resolveInChild(dir)));
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toBe(readFileSync(path.join(dir, 'test.key'), 'utf8').trim());
    expect(readdirSync(dir)).toEqual(['test.key']);
  }, 60_000);

  it('uses the configured key and writes nothing', () => {
    const dir = freshDir();
    const configured = 'ab'.repeat(32);
    expect(resolveDataKey(configured, dir, { name: 'TEST_KEY', file: 'test.key' })).toEqual({
      key: Buffer.from(configured, 'hex'),
      generated: false,
    });
    expect(() => readdirSync(dir)).toThrow();
  });
});
