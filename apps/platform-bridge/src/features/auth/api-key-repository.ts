import type { PrismaClient } from '../../generated/prisma/client.ts';

export interface KeyRow {
  id: number;
  tenant_id: number;
  kind: string;
  secret_hash: Uint8Array;
  scopes: string[];
  revoked_at: Date | null;
  last_used_at: Date | null;
  slug: string;
  name: string;
  flags: string[];
}

// Everything authentication needs in one round trip: the key, its tenant and the tenant's enabled flags.
export function createApiKeyRepository(db: PrismaClient) {
  return {
    findForAuth: async (lookupPrefix: string): Promise<KeyRow | undefined> => {
      const rows = await db.$queryRaw<KeyRow[]>`
        SELECT k.id, k.tenant_id, k.kind, k.secret_hash, k.scopes, k.revoked_at, k.last_used_at, t.slug, t.name,
               coalesce(array_agg(f.flag) FILTER (WHERE f.enabled), '{}') AS flags
          FROM api_keys k
          JOIN tenants t ON t.id = k.tenant_id
          LEFT JOIN tenant_flags f ON f.tenant_id = t.id
         WHERE k.lookup_prefix = ${lookupPrefix}
         GROUP BY k.id, t.id`;
      return rows[0];
    },
    touch: async (id: number, at: Date): Promise<void> => {
      await db.apiKey.update({ where: { id }, data: { lastUsedAt: at } });
    },
  };
}
export type ApiKeyRepository = ReturnType<typeof createApiKeyRepository>;
