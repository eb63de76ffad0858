import { z } from 'zod';
import type { Db } from '../../lib/db.ts';
import { ACCESS_AUDIT_CLI_ACTOR, type AccessAuditEntry } from '@pa/contracts';
import { Conflict, NotFound, ValidationFailed } from '@pa/http-kit';
import { type KeyKind, keyPreview } from '../auth/api-key-format.ts';
import { createApiKeyRepository } from '../auth/api-key-repository.ts';
import { ADMIN_SCOPES, REMOTE_SCOPES } from '../auth/scopes.ts';
import { createEmailActivityRepository } from '../email-activity/email-activity-repository.ts';
import { createAccessAuditRepository } from './access-audit-repository.ts';
import { createFlagAdmin, isTenantFlag } from './flag-admin.ts';
import { TENANT_FLAGS, TENANT_SLUG, type TenantFlagName } from './flags.ts';
import { createKeyAdmin } from './key-admin.ts';
import { createTenantsRepository } from './tenants-repository.ts';

const REVIEW_SCOPES = ['review:read', 'review:write'] as const;

export const Invalid = (detail: string) => new ValidationFailed([], detail);

// An address an operator types: one @, no spaces, local part ≤ 64 and domain ≤ 255 characters.
const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}$/;

/** The access audit's actor of every change made through this service's slug-named (operator) actions. */
export const CLI_ACTOR = ACCESS_AUDIT_CLI_ACTOR;

// Actions on tenants, flags, keys and mailboxes. The slug-named ones are the operator's (the CLI, the demo seed,
// tests): each resolves the slug once and then works by id. `keys`, `flags` and `audit` are the tenant-scoped
// services under them, which the admin API (features/remote-access) calls with the admin key's tenant and label:
// both paths change keys and flags the same way and leave the same access-audit entries.
export function createTenantAdminService(deps: { db: Db }) {
  const tenants = createTenantsRepository(deps.db);
  const apiKeys = createApiKeyRepository(deps.db);
  const mailboxes = createEmailActivityRepository(deps.db);
  const keys = createKeyAdmin(deps);
  const flags = createFlagAdmin(deps);
  const accessAudit = createAccessAuditRepository(deps.db);

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
    const { row, secret } = await keys.issue(tenantId, kind, scopes, extra, CLI_ACTOR);
    return {
      id: row.id,
      key: secret,
      preview: keyPreview(row.lookupPrefix),
      scopes: row.scopes,
      created_at: row.createdAt.toISOString(),
    };
  }

  return {
    tenantBySlug,
    keys,
    flags,

    /** The tenant's access audit, newest first. */
    async audit(tenantId: number, limit: number): Promise<AccessAuditEntry[]> {
      const rows = await accessAudit.list(tenantId, limit);
      return rows.map((r) => ({
        id: r.id,
        actor: r.actor,
        action: r.action as AccessAuditEntry['action'],
        target: r.target,
        at: r.at.toISOString(),
      }));
    },

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
      if (!isTenantFlag(flag)) {
        throw Invalid(`Unknown flag "${flag}". Known flags: ${TENANT_FLAGS.join(', ')}.`);
      }
      const t = await tenantBySlug(slug);
      await flags.set(t.id, flag, enabled, CLI_ACTOR);
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

    // By default the review queue's scopes, as before `access:manage` existed: managing keys, flags and endpoints is
    // granted on purpose (`--scopes ...,access:manage`).
    async createAdmin(slug: string, email: string, scopes: string[] = [...REVIEW_SCOPES]) {
      // zod's email check (stricter than the mailbox pattern): the address names the admin in the audit trail.
      if (!z.email().max(254).safeParse(email).success) throw Invalid(`"${email}" is not an email address.`);
      const bad = scopes.filter((s) => !(ADMIN_SCOPES as readonly string[]).includes(s));
      if (bad.length || scopes.length === 0)
        throw Invalid(`Scopes must be among ${ADMIN_SCOPES.join(', ')}.`);
      const t = await tenantBySlug(slug);
      return {
        tenant: slug,
        email,
        ...(await issueKey(t.id, 'admin', [...new Set(scopes)], { adminEmail: email })),
      };
    },

    /** A tenant's admin keys (never the secrets). */
    async listAdmins(slug: string) {
      const t = await tenantBySlug(slug);
      const rows = await apiKeys.list(t.id);
      return rows
        .filter((k) => k.kind === 'admin')
        .map((k) => ({
          id: k.id,
          email: k.adminEmail,
          preview: keyPreview(k.lookupPrefix),
          scopes: k.scopes,
          created_at: k.createdAt.toISOString(),
          last_used_at: k.lastUsedAt?.toISOString() ?? null,
          revoked_at: k.revokedAt?.toISOString() ?? null,
        }));
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

    async revokeKey(id: number, kind?: KeyKind) {
      // Operators name a key by id alone; its tenant is looked up first and scopes the rest.
      const tenantId = await apiKeys.tenantOfKey(id);
      const k = tenantId === undefined ? null : await apiKeys.find(tenantId, id);
      if (tenantId === undefined || !k || (kind && k.kind !== kind)) {
        throw new NotFound('key-not-found', `No ${kind === 'admin' ? 'admin key' : 'key'} with id ${id}.`);
      }
      const row = await keys.revoke(tenantId, id, k.kind as KeyKind, CLI_ACTOR);
      return { id, revoked_at: row.revokedAt!.toISOString() };
    },

    async addMailbox(slug: string, address: string) {
      if (!EMAIL.test(address)) throw Invalid(`"${address}" is not an email address.`);
      const t = await tenantBySlug(slug);
      const m = await mailboxes.addMailbox(t.id, address.toLowerCase());
      return { tenant: slug, address: m.address };
    },
  };
}
export type TenantAdminService = ReturnType<typeof createTenantAdminService>;
