import type { Db, StatementRunner } from '../../lib/db.ts';

export interface McpAuditLine {
  tenantId: number;
  apiKeyId: number;
  tool: string;
  /** the ids among the call's arguments (and a proposal's id once made) */
  ids: Record<string, number | string>;
  /** `ok`, or the problem's code */
  status: string;
  durationMs: number;
  at: Date;
}

export interface McpAuditRow {
  at: Date;
  api_key_id: number;
  key_label: string | null;
  tool: string;
  ids: Record<string, number | string>;
  status: string;
  duration_ms: number;
}

// A batch in one named statement with one parameter (the lines as JSON), whatever its size: Prisma's createMany
// would compile a query per batch size, which costs more CPU than the calls it records.
const INSERT = {
  name: 'mcp_audit_insert',
  text: `
    INSERT INTO mcp_tool_calls (tenant_id, api_key_id, tool, ids, status, duration_ms, at)
    SELECT l.tenant_id, l.api_key_id, l.tool, l.ids, l.status, l.duration_ms, l.at
      FROM jsonb_to_recordset($1::jsonb)
        AS l(tenant_id int, api_key_id int, tool text, ids jsonb, status text, duration_ms int, at timestamptz)`,
};

// Old lines go in bounded batches, so that a first prune after a long pause never holds a long transaction. It
// answers how many went, so that the writer knows a full batch left more behind.
const PRUNE = {
  name: 'mcp_audit_prune',
  text: `
    WITH gone AS (
      DELETE FROM mcp_tool_calls
       WHERE id IN (SELECT id FROM mcp_tool_calls WHERE at < $1::timestamptz LIMIT $2)
      RETURNING 1)
    SELECT count(*)::int AS deleted FROM gone`,
};

// The tenant's lines, newest first; the key's label as it is now (a line names the key by id).
const RECENT_SQL = `
SELECT c.at, c.api_key_id, k.label AS key_label, c.tool, c.ids, c.status, c.duration_ms
  FROM mcp_tool_calls c
  LEFT JOIN api_keys k ON k.tenant_id = c.tenant_id AND k.id = c.api_key_id
 WHERE c.tenant_id = $1
 ORDER BY c.at DESC, c.id DESC
 LIMIT $2`;

export function createMcpAuditRepository(db: Db, statements: StatementRunner) {
  return {
    /** Writes a batch of lines in one statement. */
    insert: (lines: readonly McpAuditLine[]) =>
      statements(INSERT, [
        JSON.stringify(
          lines.map((l) => ({
            tenant_id: l.tenantId,
            api_key_id: l.apiKeyId,
            tool: l.tool,
            ids: l.ids,
            status: l.status,
            duration_ms: l.durationMs,
            at: l.at.toISOString(),
          })),
        ),
      ]),

    /** Deletes up to `batch` lines older than `before` (every tenant's); resolves to how many it deleted. */
    prune: async (before: Date, batch: number): Promise<number> =>
      (await statements<{ deleted: number }>(PRUNE, [before.toISOString(), batch]))[0]?.deleted ?? 0,

    /** The tenant's newest lines (the operator's CLI). */
    recent: (tenantId: number, limit: number) =>
      db.$queryRawUnsafe<McpAuditRow[]>(RECENT_SQL, tenantId, limit),

    tenantIdOf: async (slug: string) =>
      (await db.tenant.findUnique({ where: { slug }, select: { id: true } }))?.id ?? null,
  };
}
export type McpAuditRepository = ReturnType<typeof createMcpAuditRepository>;
