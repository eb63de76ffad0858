import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTestDatabase } from '@pa/db-tools/testing';
import { PrismaPg } from '@prisma/adapter-pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, runCli } from '../src/cli/run-cli.ts';
import { MIGRATIONS_DIR } from '../src/config.ts';
import { createTenantAdminService } from '../src/features/tenants/tenant-admin-service.ts';
import { createPrismaClient, type Db } from '../src/lib/db.ts';
import { uniqueSlug } from './support/factories.ts';

// `npm run platform -- knowledge …` in-process against a real PostgreSQL database: the import of a folder of
// Markdown files (front matter, re-import idempotent, errors in words), add, edit, remove and list.

let database: { url: string; drop(): Promise<void> };
let db: Db;
let dir: string;

beforeAll(async () => {
  database = await createTestDatabase({ prefix: 'knowledge_cli', migrationsDir: MIGRATIONS_DIR });
  db = createPrismaClient(new PrismaPg({ connectionString: database.url }));
  dir = mkdtempSync(path.join(tmpdir(), 'knowledge-cli-'));
});
afterAll(async () => {
  await db?.$disconnect();
  await database?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function run(...args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    stdout: (s) => (stdout += s),
    stderr: (s) => (stderr += s),
    env: { PLATFORM_DATABASE_URL: database.url, NODE_ENV: 'test' },
  });
  return { code, stdout, stderr };
}

async function tenantWithProperty() {
  const slug = uniqueSlug('kn');
  const tenant = await createTenantAdminService({ db }).createTenant(slug, 'Knowledge Lettings');
  const property = await db.property.create({
    data: {
      tenantId: tenant.id,
      ref: 'MAN-003',
      line1: '27 Landcross Road',
      town: 'Manchester',
      postcode: 'M14 6NA',
      propertyType: 'house',
      bedrooms: 5,
      bathrooms: 2,
      tenure: 'freehold',
      furnishing: 'furnished',
      localAuthority: 'Manchester City Council',
      lettingStatus: 'let',
      managementType: 'managed',
    },
  });
  return { slug, tenantId: tenant.id, propertyId: property.id };
}

const mkdir = (name: string) => {
  const d = path.join(dir, name);
  rmSync(d, { recursive: true, force: true });
  return mkdtempSync(`${d}-`);
};

describe('knowledge import <dir>', () => {
  it('adds one document per file from its front matter, and a re-import changes nothing', async () => {
    const { slug, tenantId, propertyId } = await tenantWithProperty();
    const d = mkdir('good');
    writeFileSync(
      path.join(d, 'stopcock.md'),
      '---\ntitle: Stopcock location\nkind: property_note\nproperty: MAN-003\n---\nUnder the cellar steps.\n',
    );
    writeFileSync(
      path.join(d, 'emergencies.md'),
      '---\r\ntitle: "Emergency repairs"\r\nkind: procedure\r\nkey: emergency-repairs\r\n---\r\nCall HomeFix 24.\r\n',
    );
    writeFileSync(path.join(d, 'notes.txt'), 'not Markdown: ignored');

    const first = await run('knowledge', 'import', d, '--tenant', slug, '--json');
    expect(first.code, first.stderr).toBe(EXIT_OK);
    expect(JSON.parse(first.stdout)).toMatchObject({ added: 2, updated: 0, unchanged: 0 });
    const rows = await db.knowledgeDocument.findMany({ where: { tenantId }, orderBy: { key: 'asc' } });
    expect(rows.map((r) => [r.key, r.propertyId, r.kind, r.title, r.body])).toEqual([
      ['emergency-repairs', null, 'procedure', 'Emergency repairs', 'Call HomeFix 24.'],
      ['stopcock', propertyId, 'property_note', 'Stopcock location', 'Under the cellar steps.'],
    ]);

    const again = await run('knowledge', 'import', d, '--tenant', slug);
    expect(again.code).toBe(EXIT_OK);
    expect(again.stdout).toContain('0 added, 0 updated, 2 unchanged');
    const unchanged = await db.knowledgeDocument.findMany({ where: { tenantId }, orderBy: { key: 'asc' } });
    expect(unchanged.map((r) => r.changeSeq)).toEqual(rows.map((r) => r.changeSeq));

    writeFileSync(
      path.join(d, 'stopcock.md'),
      '---\ntitle: Stopcock location\nkind: property_note\nproperty: MAN-003\n---\nUnder the cellar steps, on the right.\n',
    );
    const edited = await run('knowledge', 'import', d, '--tenant', slug, '--json');
    expect(JSON.parse(edited.stdout)).toMatchObject({ added: 0, updated: 1, unchanged: 1 });
  });

  it('reports every bad file in words and imports nothing', async () => {
    const { slug, tenantId } = await tenantWithProperty();
    const d = mkdir('bad');
    writeFileSync(path.join(d, 'a-good.md'), '---\ntitle: Fine\nkind: procedure\n---\nFine.\n');
    writeFileSync(path.join(d, 'b-kind.md'), '---\ntitle: Boiler\nkind: boiler\n---\nText.\n');
    writeFileSync(path.join(d, 'c-nofm.md'), 'Just text.\n');
    writeFileSync(path.join(d, 'd-field.md'), '---\ntitle: T\nkind: procedure\nauthor: me\n---\nText.\n');
    writeFileSync(
      path.join(d, 'e-long.md'),
      `---\ntitle: Long\nkind: procedure\n---\n${'x'.repeat(20_001)}\n`,
    );
    const r = await run('knowledge', 'import', d, '--tenant', slug);
    expect(r.code).toBe(EXIT_FAILED);
    expect(r.stderr).toContain('c-nofm.md: does not start with front matter');
    expect(r.stderr).toContain('d-field.md: unknown front matter field "author"');
    expect(await db.knowledgeDocument.count({ where: { tenantId } })).toBe(0);

    // the files' own checks pass but the documents' do not: the kind and the size, all reported
    rmSync(path.join(d, 'c-nofm.md'));
    rmSync(path.join(d, 'd-field.md'));
    const r2 = await run('knowledge', 'import', d, '--tenant', slug);
    expect(r2.code).toBe(EXIT_FAILED);
    expect(r2.stderr).toMatch(/b-kind: kind "boiler" is not one of property_note, .*local_rule/);
    expect(r2.stderr).toContain('e-long: body is 20,001 characters long; at most 20,000 are allowed');
    expect(await db.knowledgeDocument.count({ where: { tenantId } })).toBe(0);

    const missing = await run('knowledge', 'import', path.join(d, 'nope'), '--tenant', slug);
    expect(missing.code).toBe(EXIT_FAILED);
    expect(missing.stderr).toContain('cannot read the folder');
    expect((await run('knowledge', 'import', '--tenant', slug)).code).toBe(EXIT_USAGE);
  });
});

describe('knowledge add, edit, remove, list', () => {
  it('keeps a tombstone on remove and lists documents with en-GB dates', async () => {
    const { slug, tenantId } = await tenantWithProperty();
    const added = await run(
      'knowledge',
      'add',
      '--tenant',
      slug,
      '--kind',
      'landlord_instruction',
      '--title',
      'Repair limit',
      '--body',
      'Up to £300.',
      '--property',
      'MAN-003',
      '--json',
    );
    expect(added.code, added.stderr).toBe(EXIT_OK);
    const { id, key } = JSON.parse(added.stdout);
    expect(key).toBe('repair-limit');
    const twice = await run(
      'knowledge',
      'add',
      '--tenant',
      slug,
      '--kind',
      'procedure',
      '--title',
      'Repair limit',
      '--body',
      'x',
    );
    expect(twice.code).toBe(EXIT_FAILED);
    expect(twice.stderr).toContain('exists already');

    expect(
      (await run('knowledge', 'edit', '--tenant', slug, '--id', String(id), '--body', 'Up to £350.')).code,
    ).toBe(EXIT_OK);
    expect((await db.knowledgeDocument.findUniqueOrThrow({ where: { id } })).body).toBe('Up to £350.');
    expect((await run('knowledge', 'edit', '--tenant', slug, '--id', String(id))).code).toBe(EXIT_USAGE);
    expect(
      (await run('knowledge', 'add', '--tenant', slug, '--kind', 'nope', '--title', 'T', '--body', 'B')).code,
    ).toBe(EXIT_USAGE);

    const listed = await run('knowledge', 'list', '--tenant', slug);
    expect(listed.stdout).toMatch(
      /repair-limit\s+MAN-003\s+landlord_instruction\s+Repair limit\s+\d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2}\s+current/,
    );

    expect((await run('knowledge', 'remove', '--tenant', slug, '--key', 'repair-limit')).code).toBe(EXIT_OK);
    const row = await db.knowledgeDocument.findUniqueOrThrow({ where: { id } });
    expect(row.deletedAt).not.toBeNull();
    expect((await run('knowledge', 'list', '--tenant', slug)).stdout).toContain('has no knowledge documents');
    expect((await run('knowledge', 'list', '--tenant', slug, '--deleted')).stdout).toMatch(
      /removed \d{1,2} [A-Z]/,
    );
    const again = await run('knowledge', 'remove', '--tenant', slug, '--id', String(id));
    expect(again.code).toBe(EXIT_FAILED);
    expect(again.stderr).toContain(`no document with id ${id}`);
    expect(await db.knowledgeDocument.count({ where: { tenantId } })).toBe(1);
  });
});
