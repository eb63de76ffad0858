import { NotFound } from '@pa/http-kit';
import { createMcpAuditRepository } from '../features/mcp/mcp-audit-repository.ts';
import { MCP_AUDIT_RETENTION_DAYS } from '../features/mcp/mcp-audit-writer.ts';
import { statementRunner } from '../lib/db.ts';
import type { Command, OptionValues } from './command.ts';
import { textTable as table } from '@pa/http-kit';
import { UsageError } from './usage-error.ts';

// `audit mcp` (docs/mcp.md): what assistants did through the MCP endpoint, one line per tool call, newest first —
// when, which key, which tool with which ids, how it ended and how long it took.

const LIMIT_DEFAULT = 50;
const LIMIT_MAX = 1000;

function limitOf(opts: OptionValues): number {
  if (opts.limit === undefined) return LIMIT_DEFAULT;
  const raw = String(opts.limit);
  if (!/^[1-9]\d{0,3}$/.test(raw) || Number(raw) > LIMIT_MAX) {
    throw new UsageError(`--limit must be a whole number from 1 to ${LIMIT_MAX}, not "${raw}".`);
  }
  return Number(raw);
}

const idsText = (ids: Record<string, unknown>) =>
  Object.entries(ids)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(' ');

export const AUDIT_COMMANDS: Command[] = [
  {
    name: 'audit mcp',
    synopsis: '--tenant S [--limit N]',
    summary: `List the tenant's MCP tool calls, newest first (default ${LIMIT_DEFAULT}; kept ${MCP_AUDIT_RETENTION_DAYS} days)`,
    required: ['tenant'],
    optional: ['limit'],
    check: (opts) => void limitOf(opts),
    async run({ db }, opts) {
      const slug = String(opts.tenant);
      const audit = createMcpAuditRepository(db, statementRunner(db));
      const tenantId = await audit.tenantIdOf(slug);
      if (tenantId === null) throw new NotFound('tenant-not-found', `No tenant with slug "${slug}".`);
      const rows = await audit.recent(tenantId, limitOf(opts));
      const calls = rows.map((r) => ({
        at: r.at.toISOString(),
        key_id: r.api_key_id,
        key_label: r.key_label,
        tool: r.tool,
        ids: r.ids,
        status: r.status,
        duration_ms: r.duration_ms,
      }));
      const text = calls.length
        ? table(
            ['AT', 'KEY', 'TOOL', 'IDS', 'STATUS', 'MS'],
            calls.map((c) => [
              c.at,
              c.key_label ? `${c.key_id} ${c.key_label}` : String(c.key_id),
              c.tool,
              idsText(c.ids),
              c.status,
              String(c.duration_ms),
            ]),
          )
        : `No MCP tool calls recorded for ${slug} (in the last ${MCP_AUDIT_RETENTION_DAYS} days).`;
      return { json: { tenant: slug, calls }, text };
    },
  },
];
