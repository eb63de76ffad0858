import type { Db } from '../../lib/db.ts';

// Embed keys (docs/embedding.md). Every query an admin can reach takes the workspace and the worker; the one
// lookup without them is by the key's own lookup prefix (the runtime authenticating a presented key).

export interface EmbedKeyData {
  label: string;
  keyPrefix: string;
  keyHash: Uint8Array<ArrayBuffer>;
  origins: string[];
  allowProposals: boolean;
  requireVisitorToken: boolean;
  visitorPerMinute: number;
  ipPerMinute: number;
  workspacePerDay: number;
  visitorSecretCipher: Uint8Array<ArrayBuffer>;
}

/** What an edit may change: never the key, its hash or its visitor secret. */
export type EmbedKeySettings = Pick<
  EmbedKeyData,
  | 'label'
  | 'origins'
  | 'allowProposals'
  | 'requireVisitorToken'
  | 'visitorPerMinute'
  | 'ipPerMinute'
  | 'workspacePerDay'
>;
export type EmbedKeyRow = EmbedKeySettings & { id: string; workspaceId: string; workerId: string };

export function createEmbedKeysRepository(db: Db) {
  return {
    /**
     * Creates the key unless the worker already holds `maxLive` live keys, under the worker's row lock so that two
     * creations at once cannot both pass the count. `worker-not-found` when the worker is not in the workspace.
     */
    createLimited: (workspaceId: string, workerId: string, data: EmbedKeyData, maxLive: number) =>
      db.$transaction(async (tx) => {
        const locked = (
          await tx.$queryRaw<unknown[]>`
            SELECT id FROM workers WHERE id = ${workerId}::uuid AND workspace_id = ${workspaceId}::uuid FOR UPDATE`
        ).length;
        if (!locked) return { outcome: 'worker-not-found' as const };
        const live = await tx.embedKey.count({ where: { workspaceId, workerId, revokedAt: null } });
        if (live >= maxLive) return { outcome: 'limit' as const };
        const row = await tx.embedKey.create({ data: { workspaceId, workerId, ...data } });
        return { outcome: 'created' as const, row };
      }),

    /** The worker's keys, newest first, revoked ones included. */
    list: (workspaceId: string, workerId: string) =>
      db.embedKey.findMany({
        where: { workspaceId, workerId },
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      }),

    workerExists: async (workspaceId: string, workerId: string) =>
      (await db.worker.count({ where: { workspaceId, id: workerId } })) > 0,

    find: (workspaceId: string, workerId: string, id: string) =>
      db.embedKey.findFirst({ where: { workspaceId, workerId, id } }),

    /**
     * Edits the live key under its row lock: `decide` reads the key as it is and answers the columns to write (or
     * throws, and nothing changes), so that two edits or an edit and a revocation at once cannot mix. `not-found`
     * when no key of this workspace and worker has the id.
     */
    updateLive: (
      workspaceId: string,
      workerId: string,
      id: string,
      decide: (row: EmbedKeyRow) => EmbedKeySettings,
    ) =>
      db.$transaction(async (tx) => {
        const locked = (
          await tx.$queryRaw<unknown[]>`
            SELECT id FROM embed_keys
            WHERE id = ${id}::uuid AND workspace_id = ${workspaceId}::uuid AND worker_id = ${workerId}::uuid
            FOR UPDATE`
        ).length;
        if (!locked) return { outcome: 'not-found' as const };
        const row = await tx.embedKey.findUniqueOrThrow({ where: { id } });
        if (row.revokedAt) return { outcome: 'revoked' as const, row };
        return {
          outcome: 'updated' as const,
          row: await tx.embedKey.update({ where: { id }, data: decide(row) }),
        };
      }),

    /** Revokes the key at `now` unless it already is; false when no row changed. */
    revoke: async (workspaceId: string, workerId: string, id: string, now: Date) =>
      (
        await db.embedKey.updateMany({
          where: { workspaceId, workerId, id, revokedAt: null },
          data: { revokedAt: now },
        })
      ).count > 0,

    /** The key a presented key's lookup prefix names (revoked ones included: the caller decides). */
    byKeyPrefix: (keyPrefix: string) => db.embedKey.findUnique({ where: { keyPrefix } }),

    /**
     * The smallest daily budget among the workspace's live keys (null when it has none): the one the workspace's
     * shared daily counter is held to.
     */
    smallestWorkspacePerDay: async (workspaceId: string): Promise<number | null> =>
      (
        await db.embedKey.aggregate({
          where: { workspaceId, revokedAt: null },
          _min: { workspacePerDay: true },
        })
      )._min.workspacePerDay,

    /** Marks the key used at `now` unless it was within `throttleMs` (one write a minute, not one a request). */
    touch: (id: string, now: Date, throttleMs: number) =>
      db.embedKey.updateMany({
        where: {
          id,
          OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: new Date(now.getTime() - throttleMs) } }],
        },
        data: { lastUsedAt: now },
      }),

    /** Every origin a live key names: what CORS preflights are answered for (they carry no key). */
    liveOrigins: async (): Promise<string[]> =>
      (
        await db.$queryRaw<{ origin: string }[]>`
          SELECT DISTINCT unnest(origins) AS origin FROM embed_keys WHERE revoked_at IS NULL`
      ).map((r) => r.origin),
  };
}
export type EmbedKeysRepository = ReturnType<typeof createEmbedKeysRepository>;
