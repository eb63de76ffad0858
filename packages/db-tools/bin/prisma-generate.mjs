#!/usr/bin/env node
// `prisma generate` for every prisma/*/schema.prisma, without network access (root postinstall and
// `npm run db:generate`). Plain Node on purpose: it runs right after `npm ci`, before anything else.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../../..');
const prismaDir = path.join(root, 'prisma');
const schemas = existsSync(prismaDir)
  ? readdirSync(prismaDir, { withFileTypes: true })
      .filter((e) => e.isDirectory() && existsSync(path.join(prismaDir, e.name, 'schema.prisma')))
      .map((e) => path.join('prisma', e.name, 'schema.prisma'))
      .sort()
  : [];
if (schemas.length === 0) {
  console.log('prisma-generate: no prisma/*/schema.prisma yet, nothing to generate.');
  process.exit(0);
}

let cli;
try {
  cli = path.join(
    path.dirname(createRequire(path.join(root, 'package.json')).resolve('prisma/package.json')),
    'build/index.js',
  );
} catch {
  console.error(
    'prisma-generate: the prisma CLI is not installed (dev dependencies omitted?); cannot generate the clients.',
  );
  process.exit(1);
}

// The CLI insists the native schema engine exists and downloads it otherwise, although generate only
// uses WebAssembly: any existing executable satisfies the check. The rest stops telemetry and update
// checks from reaching out.
const engine = process.env.PRISMA_SCHEMA_ENGINE_BINARY;
const env = {
  ...process.env,
  PRISMA_SCHEMA_ENGINE_BINARY: engine && existsSync(engine) ? engine : process.execPath,
  CHECKPOINT_DISABLE: '1',
  PRISMA_HIDE_UPDATE_MESSAGE: '1',
  PRISMA_ENGINES_CHECKSUM_IGNORE_MISSING: '1',
};

for (const schema of schemas) {
  const run = spawnSync(process.execPath, [cli, 'generate', '--schema', schema], {
    cwd: root,
    env,
    stdio: 'inherit',
  });
  if (run.status !== 0) {
    console.error(
      `prisma-generate: prisma generate --schema ${schema} failed (exit ${run.status ?? run.signal}).`,
    );
    process.exit(run.status || 1);
  }
}
