import type { AdminKey, RemoteKey } from '@pa/contracts';
import { Conflict, isUniqueViolation, NotFound } from '@pa/http-kit';
import type { Db, Tx } from '../../lib/db.ts';
import { generateKey, hashKey, type KeyKind, parseKey } from '../auth/api-key-format.ts';
import { createApiKeyRepository } from '../auth/api-key-repository.ts';
import { createAccessAuditRepository } from './access-audit-repository.ts';

/** The scope whose last holder may not be revoked without saying so (the admin API only). */
export const ACCESS_SCOPE = 'access:manage';

type KeyRow = Awaited<ReturnType<ReturnType<typeof createApiKeyRepository>['create']>>;

const KIND_WORDS: Record<KeyKind, string> = { remote: 'remote key', admin: 'admin key' };

/** The key in the access audit's words, e.g. `remote key #12 "Lettings assistant" (plat_AbCd1234)`. */
function keyTarget(k: KeyRow): string {
  const name = k.kind === 'admin' ? (k.adminEmail ?? '') : k.label ? `"${k.label}"` : '';
  return `${KIND_WORDS[k.kind as KeyKind]} #${k.id}${name ? ` ${name}` : ''} (${k.lookupPrefix})`;
}

const iso = (d: Date | null) => d?.toISOString() ?? null;

export function remoteKeyView(k: KeyRow): RemoteKey {
  return {
    id: k.id,
    label: k.label,
    scopes: k.scopes,
    prefix: k.lookupPrefix,
    created_at: k.createdAt.toISOString(),
    last_used_at: iso(k.lastUsedAt),
    revoked_at: iso(k.revokedAt),
  };
}

export function adminKeyView(k: KeyRow, currentKeyId: number | null): AdminKey {
  return {
    id: k.id,
    label: k.adminEmail ?? `admin key #${k.id}`,
    scopes: k.scopes,
    prefix: k.lookupPrefix,
    created_at: k.createdAt.toISOString(),
    last_used_at: iso(k.lastUsedAt),
    revoked_at: iso(k.revokedAt),
    current: k.id === currentKeyId,
  };
}

// A tenant's API keys as its admins and the operator change them: every change is made in one transaction with its
// access-audit entry, stamped with the actor (the admin key's label, or `operator CLI`). Scopes and labels are
// checked by the callers (the contract's schemas, the CLI's wrappers in tenant-admin-service.ts).
export function createKeyAdmin(deps: { db: Db }) {
  const { db } = deps;
  const apiKeys = createApiKeyRepository(db);
  const audit = createAccessAuditRepository(db);

  return {
    /** Creates a key; the whole key (`secret`) exists in this answer only, the database keeps its hash. */
    async issue(
      tenantId: number,
      kind: KeyKind,
      scopes: string[],
      extra: { label?: string | undefined; adminEmail?: string | undefined },
      actor: string,
    ): Promise<{ row: KeyRow; secret: string }> {
      // The lookup prefix is unique; a clash (about 1 in 10^14) just draws again, in a fresh transaction.
      for (let attempt = 0; ; attempt++) {
        const secret = generateKey(kind);
        const parsed = parseKey(secret);
        if (!parsed.ok) throw new Error('generated an invalid key');
        try {
          const row = await db.$transaction(async (tx) => {
            const created = await apiKeys.create(
              tenantId,
              {
                kind,
                lookupPrefix: parsed.lookupPrefix,
                secretHash: new Uint8Array(hashKey(secret)),
                scopes: [...new Set(scopes)],
                label: extra.label ?? null,
                adminEmail: extra.adminEmail ?? null,
              },
              tx,
            );
            await audit.record(
              tenantId,
              { actor, action: `${kind}-key.created`, target: keyTarget(created) },
              tx,
            );
            return created;
          });
          return { row, secret };
        } catch (err) {
          if (attempt < 3 && isUniqueViolation(err)) continue;
          throw err;
        }
      }
    },

    list: (tenantId: number, kind: KeyKind) => apiKeys.list(tenantId, db, kind),

    /**
     * Revokes one of the tenant's keys of `kind` (404 `key-not-found` for any other id, another tenant's included).
     * Already revoked: answered as it is, with no new audit entry. With `guardLastAccessAdmin`, revoking the last
     * unrevoked admin key with `access:manage` is a 409 `last-access-admin`: nobody could then manage access
     * except the operator.
     */
    async revoke(
      tenantId: number,
      id: number,
      kind: KeyKind,
      actor: string,
      opts: { guardLastAccessAdmin?: boolean } = {},
    ): Promise<KeyRow> {
      return db.$transaction(async (tx: Tx) => {
        // locked first, so that two admins revoking each other's keys at once cannot both pass the check
        const accessAdmins =
          kind === 'admin' && opts.guardLastAccessAdmin
            ? await apiKeys.lockActiveAdminsWithScope(tenantId, ACCESS_SCOPE, tx)
            : [];
        const k = await apiKeys.find(tenantId, id, tx);
        if (!k || k.kind !== kind) {
          throw new NotFound('key-not-found', `No ${KIND_WORDS[kind]} with id ${id}.`);
        }
        if (k.revokedAt) return k;
        if (opts.guardLastAccessAdmin && accessAdmins.length === 1 && accessAdmins[0] === k.id) {
          throw new Conflict(
            'last-access-admin',
            `Admin key #${k.id} is the last one that can manage remote access; once it is revoked, only the operator can issue another. Send confirm_last_access_admin: true to revoke it anyway.`,
          );
        }
        const row = await apiKeys.revoke(tenantId, id, new Date(), tx);
        await audit.record(tenantId, { actor, action: `${kind}-key.revoked`, target: keyTarget(row) }, tx);
        return row;
      });
    },
  };
}
export type KeyAdmin = ReturnType<typeof createKeyAdmin>;
