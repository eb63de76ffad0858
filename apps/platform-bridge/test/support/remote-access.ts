import request from 'supertest';
import { bearer, makeTenant } from './factories.ts';
import type { TestBridge } from './test-app.ts';

export const ADMIN = '/api/admin';

export interface AccessTenant {
  id: number;
  slug: string;
  /** the tenant's remote key (bridge:read) */
  key: string;
  keyId: number;
  /** an admin key with access:manage */
  adminKey: string;
  adminKeyId: number;
  adminEmail: string;
}

/** A tenant with a remote key and an admin holding `access:manage` (plus `scopes`), and the given flags. */
export async function makeAccessTenant(
  t: TestBridge,
  opts: { flags?: string[]; scopes?: string[] } = {},
): Promise<AccessTenant> {
  const tenant = await makeTenant(t, { flags: opts.flags ?? ['assistant_external_bridge'] });
  const adminEmail = `owner@${tenant.slug}.example`;
  const admin = await t.admin.createAdmin(tenant.slug, adminEmail, opts.scopes ?? ['access:manage']);
  return { ...tenant, adminKey: admin.key, adminKeyId: admin.id, adminEmail };
}

/** Requests with one key. */
export function as(t: TestBridge, key: string) {
  const auth = bearer(key);
  return {
    get: (path: string) =>
      request(t.app)
        .get(path)
        .set(...auth),
    post: (path: string, body?: object) => {
      const r = request(t.app)
        .post(path)
        .set(...auth);
      return body === undefined ? r : r.send(body);
    },
    put: (path: string, body: object) =>
      request(t.app)
        .put(path)
        .set(...auth)
        .send(body),
    delete: (path: string) =>
      request(t.app)
        .delete(path)
        .set(...auth),
  };
}

/** The tenant's access audit as stored, oldest first. */
export const auditRows = (t: TestBridge, tenantId: number) =>
  t.db.accessAuditEntry.findMany({ where: { tenantId }, orderBy: { id: 'asc' } });
