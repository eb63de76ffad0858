import { type Db, type StatementRunner, statementRunner, type Tx } from '../../lib/db.ts';

export const FIND_FOR_AUTH = {
  name: 'bridge_find_key_for_auth',
  text: `
    SELECT k.id, k.tenant_id, k.kind, encode(k.secret_hash, 'hex') AS secret_hash, k.scopes, k.admin_email,
           k.revoked_at IS NOT NULL AS revoked,
           (extract(epoch FROM k.last_used_at) * 1000)::float8 AS last_used_ms, t.slug, t.name,
           coalesce(array_agg(f.flag::text) FILTER (WHERE f.enabled), '{}') AS flags
      FROM api_keys k
      JOIN tenants t ON t.id = k.tenant_id
      LEFT JOIN tenant_flags f ON f.tenant_id = t.id
     WHERE k.lookup_prefix = $1
     GROUP BY k.id, t.id`,
};

export interface KeyRow {
  id: number;
  tenant_id: number;
  kind: string;
  /** hex of the stored SHA-256 */
  secret_hash: string;
  scopes: string[];
  /** the named admin of an admin (padm_) key; null for remote keys */
  admin_email: string | null;
  revoked: boolean;
  /** epoch milliseconds, null when never used */
  last_used_ms: number | null;
  slug: string;
  name: string;
  flags: string[];
}

export interface NewKey {
  kind: string;
  lookupPrefix: string;
  secretHash: Uint8Array<ArrayBuffer>;
  scopes: string[];
  label: string | null;
  adminEmail: string | null;
}

// API keys. Every query names the tenant first, except the two that exist to find it: authentication (a
// request brings only its key) and the operator's `keys revoke --id`, which is told a key id alone.
export function createApiKeyRepository(db: Db, statements: StatementRunner = statementRunner(db)) {
  return {
    // Everything authentication needs in one round trip: the key, its tenant and the tenant's enabled flags.
    // Every request runs it, so it is a named statement (see StatementRunner) selecting plain values only.
    findForAuth: async (lookupPrefix: string): Promise<KeyRow | undefined> =>
      (await statements<KeyRow>(FIND_FOR_AUTH, [lookupPrefix]))[0],

    /** Which tenant a key id belongs to, or undefined: the operator's way in before the tenant is known. */
    tenantOfKey: async (id: number, tx: Tx | Db = db): Promise<number | undefined> =>
      (await tx.apiKey.findUnique({ where: { id }, select: { tenantId: true } }))?.tenantId,

    /**
     * Records a use at `at` unless one within the minute before it is on record already: the condition makes the
     * write safe to race (two instances, two requests of one key) without a second write in the same minute.
     * True when it wrote.
     */
    touch: async (tenantId: number, id: number, at: Date, tx: Tx | Db = db): Promise<boolean> =>
      (await tx.$executeRaw`
        UPDATE api_keys SET last_used_at = ${at}
         WHERE id = ${id} AND tenant_id = ${tenantId}
           AND (last_used_at IS NULL OR last_used_at < ${at}::timestamptz - interval '1 minute')`) > 0,

    /**
     * Locks the tenant's unrevoked admin keys holding `scope` (in id order, so that two revokers queue rather than
     * deadlock) and returns their ids: the check "is this the last one?" then holds until the transaction ends.
     */
    lockActiveAdminsWithScope: async (tenantId: number, scope: string, tx: Tx): Promise<number[]> =>
      (
        await tx.$queryRaw<Array<{ id: number }>>`
          SELECT id FROM api_keys
           WHERE tenant_id = ${tenantId} AND kind = 'admin' AND revoked_at IS NULL AND ${scope} = ANY(scopes)
           ORDER BY id FOR UPDATE`
      ).map((r) => r.id),

    /** Throws Prisma's P2002 when the lookup prefix is taken (the caller draws another key). */
    create: (tenantId: number, key: NewKey, tx: Tx | Db = db) =>
      tx.apiKey.create({ data: { tenantId, ...key } }),

    list: (tenantId: number, tx: Tx | Db = db, kind?: string) =>
      tx.apiKey.findMany({ where: { tenantId, ...(kind ? { kind } : {}) }, orderBy: { id: 'asc' } }),

    find: (tenantId: number, id: number, tx: Tx | Db = db) =>
      tx.apiKey.findFirst({ where: { tenantId, id } }),

    revoke: (tenantId: number, id: number, at: Date, tx: Tx | Db = db) =>
      tx.apiKey.update({ where: { id, tenantId }, data: { revokedAt: at } }),
  };
}
export type ApiKeyRepository = ReturnType<typeof createApiKeyRepository>;
