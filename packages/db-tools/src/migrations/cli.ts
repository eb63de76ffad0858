// Offline replacement for `prisma migrate deploy|dev --create-only|diff`, run as
// `tsx packages/db-tools/src/migrations/cli.ts <deploy|new|check> ...` (npm run db:migrate, db:migrate:new,
// db:check). It knows no app: every folder of the Prisma directory that holds a schema.prisma is a schema, and
// the URL of schema `x` is read from `X_DATABASE_URL`, so the folder names chosen by the apps decide both.
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { migrateUrl, redact } from './postgres-admin.ts';
import { checkMigrations, createMigration, shadowServerUrl } from './schema-engine.ts';
import { isAuthRefused, isUnreachable, START_HINT } from './unreachable.ts';

const USAGE = `Usage: tsx packages/db-tools/src/migrations/cli.ts <command> [--prisma-dir DIR] [options]

  deploy [--schema NAME|all] [--url URL]
      Apply pending migrations. URL defaults to <NAME>_DATABASE_URL (upper case).
  new <name> --schema NAME
      Create DIR/<NAME>/migrations/<timestamp>_<name>/migration.sql from schema.prisma changes.
      --schema may be left out when DIR has one schema only.
  check [--schema NAME|all]
      Fail when schema.prisma and the migrations folder disagree.

DIR (default ./prisma) holds one folder per schema: NAME/schema.prisma and NAME/migrations/.
Shadow databases are created on SHADOW_DATABASE_URL, else TEST_DATABASE_URL's server, else
postgresql://postgres@127.0.0.1:5432, and dropped afterwards.`;

function files(prismaDir: string, schema: string) {
  const dir = path.join(prismaDir, schema);
  return { dir, schemaPath: path.join(dir, 'schema.prisma'), migrationsDir: path.join(dir, 'migrations') };
}

function schemasIn(prismaDir: string): string[] {
  if (!existsSync(prismaDir)) return [];
  return readdirSync(prismaDir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(files(prismaDir, e.name).schemaPath))
    .map((e) => e.name)
    .sort();
}

function selectSchemas(prismaDir: string, option: string | undefined, fallback: 'all' | 'one'): string[] {
  const known = schemasIn(prismaDir);
  if (known.length === 0) throw new UsageError(`${prismaDir} holds no <schema>/schema.prisma`);
  const choice = option ?? fallback;
  if (choice === 'all') return known;
  if (choice === 'one') {
    if (known.length === 1) return known;
    throw new UsageError(`Name the schema with --schema (${known.join(', ')})`);
  }
  if (!known.includes(choice)) throw new UsageError(`Unknown schema "${choice}"; use ${known.join(', ')} or all`);
  return [choice];
}

class UsageError extends Error {}

const rel = (p: string) => path.relative(process.cwd(), p) || '.';

async function deploy(prismaDir: string, schemas: string[], url: string | undefined): Promise<number> {
  if (url && schemas.length !== 1) throw new UsageError('--url needs a single --schema');
  for (const schema of schemas) {
    const envName = `${schema.toUpperCase()}_DATABASE_URL`;
    const target = url ?? process.env[envName];
    if (!target) {
      console.log(
        `${schema}: ${envName} is not set; the app applies migrations to its embedded database itself at start.`,
      );
      continue;
    }
    const { migrationsDir } = files(prismaDir, schema);
    const result = await migrateUrl(target, migrationsDir, {
      log: (msg) => console.log(`${schema}: ${msg}`),
    });
    console.log(
      `${schema}: ${redact(target)} is up to date (${result.applied.length} applied now, ${result.alreadyApplied} before).`,
    );
  }
  return 0;
}

async function create(prismaDir: string, name: string | undefined, schemas: string[]): Promise<number> {
  if (!name) throw new UsageError('new needs a migration name');
  const [schema] = schemas;
  if (!schema || schemas.length !== 1) throw new UsageError('new works on one schema at a time');
  const { schemaPath, migrationsDir } = files(prismaDir, schema);
  const created = await createMigration({ schemaPath, migrationsDir, name, serverUrl: shadowServerUrl() });
  if (!created) {
    console.log(`${schema}: schema.prisma and ${rel(migrationsDir)} already agree; no migration created.`);
  } else {
    console.log(`${schema}: created ${rel(created.file)}\n\n${created.sql}`);
  }
  return 0;
}

async function check(prismaDir: string, schemas: string[]): Promise<number> {
  let failures = 0;
  for (const schema of schemas) {
    const { schemaPath, migrationsDir } = files(prismaDir, schema);
    const { inSync, sql } = await checkMigrations({
      schemaPath,
      migrationsDir,
      serverUrl: shadowServerUrl(),
    });
    if (inSync) {
      console.log(`${schema}: schema.prisma and ${rel(migrationsDir)} agree.`);
      continue;
    }
    failures++;
    console.error(
      `${schema}: ${rel(schemaPath)} has changes that no migration covers. ` +
        `Create one with: npm run db:migrate:new -- <name> --schema ${schema}\nSQL still missing from the migrations:\n\n${sql}`,
    );
  }
  return failures === 0 ? 0 : 1;
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      schema: { type: 'string' },
      url: { type: 'string' },
      'prisma-dir': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command, ...rest] = positionals;
  if (values.help || !command) {
    console.log(USAGE);
    return values.help ? 0 : 2;
  }
  const prismaDir = path.resolve(values['prisma-dir'] ?? 'prisma');
  switch (command) {
    case 'deploy':
      return deploy(prismaDir, selectSchemas(prismaDir, values.schema, 'all'), values.url);
    case 'new':
      return create(prismaDir, rest[0], selectSchemas(prismaDir, values.schema, 'one'));
    case 'check':
      return check(prismaDir, selectSchemas(prismaDir, values.schema, 'all'));
    default:
      throw new UsageError(`Unknown command "${command}"`);
  }
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (err) {
  const badArgs =
    err instanceof Error && String((err as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS');
  if (err instanceof UsageError || badArgs) {
    console.error(`${(err as Error).message}\n\n${USAGE}`);
    process.exitCode = 2;
  } else {
    console.error(err instanceof Error ? err.message : err);
    if (isUnreachable(err)) console.error(`Is PostgreSQL running? Start it with: ${START_HINT}`);
    if (isAuthRefused(err)) console.error('PostgreSQL refused the login: check the user and password in the URL.');
    process.exitCode = 1;
  }
}
