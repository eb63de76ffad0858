import type { Db } from '../../lib/db.ts';

const SELECT = { id: true, ref: true, line1: true, town: true, postcode: true } as const;

// A property named as a person names it in a prompt's argument: its id or its reference (MAN-003, any case), within
// the tenant. The tenant id comes first and is in every `where`.
export function createMcpPropertyLookup(db: Db) {
  return {
    async find(tenantId: number, idOrRef: string) {
      const name = idOrRef.trim();
      if (/^[1-9][0-9]{0,9}$/.test(name) && Number(name) <= 2_147_483_647) {
        const byId = await db.property.findFirst({ where: { tenantId, id: Number(name) }, select: SELECT });
        if (byId) return byId;
      }
      return db.property.findFirst({
        where: { tenantId, ref: { equals: name, mode: 'insensitive' } },
        select: SELECT,
      });
    },
  };
}
export type McpPropertyLookup = ReturnType<typeof createMcpPropertyLookup>;
