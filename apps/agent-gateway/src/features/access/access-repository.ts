import type { DeviceScope } from '@pa/contracts';
import type { Db, StatementRunner } from '../../lib/db.ts';

// Devices and pairing codes. Every query that an admin device can reach takes its workspace (null: the operator,
// who sees every workspace).

const bytes = (b: Uint8Array) => new Uint8Array(b);

/** What the access check reads of a device, on every request with a token. */
export interface TokenDevice {
  id: string;
  workspaceId: string;
  tokenHash: Buffer;
  scopes: string[];
  revoked: boolean;
  lastUsedAt: Date | null;
}

// Run on every request that carries a token: a named prepared statement (the chat's hot path pays one indexed
// lookup, not a Prisma query). Plain text/boolean/number columns only, as StatementRunner requires.
const TOKEN_DEVICE = {
  name: 'gateway_token_device',
  text: `SELECT id::text AS id, workspace_id::text AS "workspaceId", encode(token_hash, 'hex') AS "tokenHash",
       array_to_string(scopes, ',') AS scopes, revoked_at IS NOT NULL AS revoked,
       (extract(epoch FROM last_used_at) * 1000)::float8 AS "lastUsedMs"
FROM devices WHERE token_prefix = $1`,
};

export interface DeviceRow {
  id: string;
  workspaceId: string;
  name: string;
  scopes: string[];
  tokenHash: Uint8Array;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

export function createAccessRepository(db: Db, statements: StatementRunner) {
  return {
    /** The device a token's lookup prefix names (revoked ones included: the caller decides). */
    deviceByTokenPrefix: async (tokenPrefix: string): Promise<TokenDevice | null> => {
      const [row] = await statements<{
        id: string;
        workspaceId: string;
        tokenHash: string;
        scopes: string;
        revoked: boolean;
        lastUsedMs: number | null;
      }>(TOKEN_DEVICE, [tokenPrefix]);
      if (!row) return null;
      return {
        id: row.id,
        workspaceId: row.workspaceId,
        tokenHash: Buffer.from(row.tokenHash, 'hex'),
        scopes: row.scopes ? row.scopes.split(',') : [],
        revoked: row.revoked,
        lastUsedAt: row.lastUsedMs === null ? null : new Date(row.lastUsedMs),
      };
    },

    /** Marks the device used at `now` unless it was within `throttleMs` (one write a minute, not one a request). */
    touchDevice: (id: string, now: Date, throttleMs: number) =>
      db.device.updateMany({
        where: {
          id,
          OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: new Date(now.getTime() - throttleMs) } }],
        },
        data: { lastUsedAt: now },
      }),

    createCode: (data: {
      workspaceId: string;
      codeHash: Uint8Array;
      scopes: readonly DeviceScope[];
      label: string | undefined;
      expiresAt: Date;
    }) =>
      db.pairingCode.create({
        data: {
          workspaceId: data.workspaceId,
          codeHash: bytes(data.codeHash),
          scopes: [...data.scopes],
          label: data.label ?? null,
          expiresAt: data.expiresAt,
        },
      }),

    /**
     * Takes a code that is unused and unexpired at `now`, in one conditional UPDATE: of two concurrent redeems the
     * second finds the row used. Null when there is no such code.
     */
    /**
     * Takes an unused, unexpired code and makes its device in one transaction: a code is redeemed once, and a
     * device exists only for a code taken. Null when the code cannot be taken.
     */
    redeemCode: (
      codeHash: Uint8Array,
      now: Date,
      device: { name: string; tokenPrefix: string; tokenHash: Uint8Array },
    ) =>
      db.$transaction(async (tx) => {
        const taken = await tx.pairingCode.updateMany({
          where: { codeHash: bytes(codeHash), usedAt: null, expiresAt: { gt: now } },
          data: { usedAt: now },
        });
        if (taken.count !== 1) return null;
        const code = await tx.pairingCode.findUnique({ where: { codeHash: bytes(codeHash) } });
        if (!code) return null;
        return tx.device.create({
          data: {
            workspaceId: code.workspaceId,
            name: device.name,
            scopes: [...code.scopes],
            tokenPrefix: device.tokenPrefix,
            tokenHash: bytes(device.tokenHash),
          },
        });
      }),

    /** The newest first; `workspaceId` null lists every workspace's. */
    listDevices: (workspaceId: string | null) =>
      db.device.findMany({
        where: workspaceId ? { workspaceId } : {},
        orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
        take: 1000,
      }),

    device: (id: string, workspaceId: string | null) =>
      db.device.findFirst({ where: { id, ...(workspaceId ? { workspaceId } : {}) } }),

    /** Revokes at `now` unless already revoked (the first revocation's time stays). */
    revokeDevice: (id: string, now: Date) =>
      db.device.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: now } }),

    /** Of these device ids, the revoked ones (open streams of other instances are closed by it). */
    revokedAmong: async (ids: string[]) =>
      (
        await db.device.findMany({
          where: { id: { in: ids }, revokedAt: { not: null } },
          select: { id: true },
        })
      ).map((d) => d.id),

    /** Codes past their expiry (used or not) are of no use to anyone: deleted when new ones are made. */
    deleteExpiredCodes: (now: Date) => db.pairingCode.deleteMany({ where: { expiresAt: { lt: now } } }),
  };
}
export type AccessRepository = ReturnType<typeof createAccessRepository>;
