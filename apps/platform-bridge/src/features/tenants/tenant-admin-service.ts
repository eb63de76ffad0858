import type { Db } from '../../lib/db.ts';
import { Conflict, NotFound, ValidationFailed } from '@pa/http-kit';
import { generateKey, hashKey, type KeyKind, keyPreview, parseKey } from '../auth/api-key-format.ts';
import { createApiKeyRepository } from '../auth/api-key-repository.ts';
import { ADMIN_SCOPES, REMOTE_SCOPES } from '../auth/scopes.ts';
import { createEmailActivityRepository } from '../email-activity/email-activity-repository.ts';
import { TENANT_FLAGS, TENANT_SLUG, type TenantFlagName } from './flags.ts';
import { createTenantsRepository } from './tenants-repository.ts';

export const Invalid = (detail: string) => new ValidationFailed([], detail);

// Operator actions on tenants, flags, keys and mailboxes: used by the CLI, the demo seed and tests. Operators
// name tenants by slug; each action resolves the slug once and then works through the repositories by id.
export function createTenantAdminService(deps: { db: Db }) {
  const tenants = createTenantsRepository(deps.db);
  const apiKeys = createApiKeyRepository(deps.db);
  const mailboxes = createEmailActivityRepository(deps.db);

  async function tenantBySlug(slug: string) {
    const t = await tenants.findBySlug(slug);
    if (!t) throw new NotFound('tenant-not-found', `No tenant with slug "${slug}".`);
    return t;
  }

  async function issueKey(
    tenantId: number,
    kind: KeyKind,
    scopes: string[],
    extra: { label?: string | undefined; adminEmail?: string | undefined },
  ) {
    // The lookup prefix is unique; a clash (about 1 in 10^14) just draws again.
    for (let attempt = 0; ; attempt++) {
      const key = generateKey(kind);
      const parsed = parseKey(key);
      if (!parsed.ok) throw new Error('generated an invalid key');
      try {
        const row = await apiKeys.create(tenantId, {
          kind,
          lookupPrefix: parsed.lookupPrefix,
          secretHash: new Uint8Array(hashKey(key)),
          scopes,
          label: extra.label ?? null,
          adminEmail: extra.adminEmail ?? null,
        });
        return {
          id: row.id,
          key,
          preview: keyPreview(row.lookupPrefix),
          scopes: row.scopes,
          created_at: row.createdAt.toISOString(),
        };
      } catch (err) {
        if (attempt < 3 && (err as { code?: string }).code === 'P2002') continue;
        throw err;
      }
    }
  }

  return {
    tenantBySlug,

    async createTenant(slug: string, name: string) {
      if (!TENANT_SLUG.test(slug)) throw Invalid(`Slug "${slug}" must match ${TENANT_SLUG}.`);
      if (!name.trim() || name.length > 200) throw Invalid('Name must be 1–200 characters.');
      const existing = await tenants.findBySlug(slug);
      if (existing) throw new Conflict('tenant-exists', `Tenant "${slug}" already exists.`);
      const t = await tenants.create({ slug, name: name.trim() });
      return { id: t.id, slug: t.slug, name: t.name, created_at: t.createdAt.toISOString() };
    },

    async listTenants() {
      const rows = await tenants.list();
      return rows.map((t) => ({
        id: t.id,
        slug: t.slug,
        name: t.name,
        created_at: t.createdAt.toISOString(),
      }));
    },

    async setFlag(slug: string, flag: string, enabled: boolean) {
      if (!(TENANT_FLAGS as readonly string[]).includes(flag)) {
        throw Invalid(`Unknown flag "${flag}". Known flags: ${TENANT_FLAGS.join(', ')}.`);
      }
      const t = await tenantBySlug(slug);
      await tenants.setFlag(t.id, flag, enabled);
      return { tenant: slug, flag: flag as TenantFlagName, enabled };
    },

    async listFlags(slug: string) {
      const t = await tenantBySlug(slug);
      const rows = await tenants.listFlags(t.id);
      const on = new Set(rows.filter((r) => r.enabled).map((r) => r.flag));
      return Object.fromEntries(TENANT_FLAGS.map((f) => [f, on.has(f)])) as Record<TenantFlagName, boolean>;
    },

    async createKey(slug: string, scopes: string[] = ['bridge:read'], label?: string) {
      const bad = scopes.filter((s) => !(REMOTE_SCOPES as readonly string[]).includes(s));
      if (bad.length || scopes.length === 0)
        throw Invalid(`Scopes must be among ${REMOTE_SCOPES.join(', ')}.`);
      if (label !== undefined && label.length > 100) throw Invalid('Label must be at most 100 characters.');
      const t = await tenantBySlug(slug);
      return { tenant: slug, ...(await issueKey(t.id, 'remote', [...new Set(scopes)], { label })) };
    },

    async createAdmin(slug: string, email: string) {
      if (!/^[^\s@]{1,64}@[^\s@]{1,255}$/.test(email)) throw Invalid(`"${email}" is not an email address.`);
      const t = await tenantBySlug(slug);
      return {
        tenant: slug,
        email,
        ...(await issueKey(t.id, 'admin', [...ADMIN_SCOPES], { adminEmail: email })),
      };
    },

    async listKeys(slug: string) {
      const t = await tenantBySlug(slug);
      const rows = await apiKeys.list(t.id);
      return rows.map((k) => ({
        id: k.id,
        kind: k.kind,
        preview: keyPreview(k.lookupPrefix),
        scopes: k.scopes,
        label: k.label,
        admin_email: k.adminEmail,
        created_at: k.createdAt.toISOString(),
        last_used_at: k.lastUsedAt?.toISOString() ?? null,
        revoked_at: k.revokedAt?.toISOString() ?? null,
      }));
    },

    async revokeKey(id: number) {
      // Operators name a key by id alone; its tenant is looked up first and scopes the rest.
      const tenantId = await apiKeys.tenantOfKey(id);
      const k = tenantId === undefined ? null : await apiKeys.find(tenantId, id);
      if (tenantId === undefined || !k) throw new NotFound('key-not-found', `No key with id ${id}.`);
      const row = k.revokedAt ? k : await apiKeys.revoke(tenantId, id, new Date());
      return { id, revoked_at: row.revokedAt!.toISOString() };
    },

    async addMailbox(slug: string, address: string) {
      if (!/^[^\s@]{1,64}@[^\s@]{1,255}$/.test(address))
        throw Invalid(`"${address}" is not an email address.`);
      const t = await tenantBySlug(slug);
      const m = await mailboxes.addMailbox(t.id, address.toLowerCase());
      return { tenant: slug, address: m.address };
    },
  };
}
export type TenantAdminService = ReturnType<typeof createTenantAdminService>;
