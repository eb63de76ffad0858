import type { KnowledgeInput } from '../../src/features/knowledge/knowledge-input.ts';
import { randomBytes } from 'node:crypto';
import type { Prisma } from '../../src/generated/prisma/client.ts';
import { fromDateString } from '../../src/lib/clock.ts';
import type { TestBridge } from './test-app.ts';

export function uniqueSlug(prefix = 't'): string {
  return `${prefix}-${randomBytes(5).toString('hex')}`;
}

/** A tenant with the bridge flag on (unless told otherwise) and a remote key. */
export async function makeTenant(
  t: TestBridge,
  opts: { flags?: string[]; scopes?: string[]; name?: string } = {},
): Promise<{ id: number; slug: string; name: string; key: string; keyId: number }> {
  const slug = uniqueSlug();
  const tenant = await t.admin.createTenant(slug, opts.name ?? `Tenant ${slug}`);
  for (const flag of opts.flags ?? ['assistant_external_bridge']) await t.admin.setFlag(slug, flag, true);
  const key = await t.admin.createKey(slug, opts.scopes ?? ['bridge:read']);
  return { id: tenant.id, slug, name: tenant.name, key: key.key, keyId: key.id };
}

let refCounter = 0;

export async function makeProperty(
  t: TestBridge,
  tenantId: number,
  overrides: Partial<Prisma.PropertyUncheckedCreateInput> = {},
) {
  refCounter++;
  return t.db.property.create({
    data: {
      tenantId,
      ref: `TST-${String(refCounter).padStart(4, '0')}-${randomBytes(2).toString('hex')}`,
      line1: `${refCounter} Test Street`,
      town: 'Manchester',
      postcode: 'M1 1AA',
      propertyType: 'flat',
      bedrooms: 2,
      bathrooms: 1,
      tenure: 'leasehold',
      furnishing: 'unfurnished',
      localAuthority: 'Manchester City Council',
      lettingStatus: 'let',
      managementType: 'managed',
      hasGas: true,
      unitsTotal: 1,
      unitsOccupied: 1,
      ...overrides,
    },
  });
}

export async function makeTenancy(
  t: TestBridge,
  tenantId: number,
  propertyId: number,
  overrides: Partial<Omit<Prisma.TenancyUncheckedCreateInput, 'startDate'>> & { startDate?: string } = {},
) {
  const { startDate, ...rest } = overrides;
  return t.db.tenancy.create({
    data: {
      tenantId,
      propertyId,
      status: 'active',
      startDate: fromDateString(startDate ?? '2025-09-01'),
      rentPence: 120_000,
      rentFrequency: 'monthly',
      ...rest,
    },
  });
}

type ItemDates = 'issueDate' | 'expiryDate' | 'nextDueDate' | 'remedialDueDate' | 'exemptionValidUntil';

export async function makeItem(
  t: TestBridge,
  tenantId: number,
  propertyId: number,
  type: string,
  overrides: Partial<Omit<Prisma.ComplianceItemUncheckedCreateInput, ItemDates>> &
    Partial<Record<ItemDates, string>> = {},
) {
  const data: Prisma.ComplianceItemUncheckedCreateInput = { tenantId, propertyId, type };
  for (const [k, v] of Object.entries(overrides)) {
    (data as Record<string, unknown>)[k] =
      typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v) ? fromDateString(v) : v;
  }
  const item = await t.db.complianceItem.create({ data });
  await t.rollup.refreshProperties(tenantId, [propertyId]);
  return item;
}

export function bearer(key: string): [string, string] {
  return ['Authorization', `Bearer ${key}`];
}

/** A knowledge document as the operator's services take it: agency-wide, a procedure, with overrides. */
export const knowledgeDoc = (key: string, o: Partial<KnowledgeInput> = {}): KnowledgeInput => ({
  key,
  propertyRef: null,
  kind: 'procedure',
  title: `Title ${key}`,
  body: `Body of ${key}.`,
  ...o,
});
