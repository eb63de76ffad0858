import { createLogger } from '@pa/http-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpAuditRepository } from '../../src/features/mcp/mcp-audit-repository.ts';
import { createMcpAuditWriter } from '../../src/features/mcp/mcp-audit-writer.ts';
import { makeTenant } from '../support/factories.ts';
import { startTestBridge, type TestBridge } from '../support/test-app.ts';

// The writer's pruning against a real database: a backlog larger than one batch drains over the next flushes
// instead of waiting an hour per batch, and once a batch comes back short it waits the hour again.

const BATCH = 100;
let t: TestBridge;

beforeAll(async () => {
  t = await startTestBridge({ now: '2026-06-15T09:00:00Z' });
});
afterAll(async () => {
  await t?.close();
});

async function insertOld(tenantId: number, keyId: number, count: number): Promise<void> {
  await t.db.$executeRawUnsafe(
    `INSERT INTO mcp_tool_calls (tenant_id, api_key_id, tool, ids, status, duration_ms, at)
     SELECT $1, $2, 'get_portfolio', '{}'::jsonb, 'ok', 3, timestamptz '2026-01-01T00:00:00Z'
       FROM generate_series(1, $3::int)`,
    tenantId,
    keyId,
    count,
  );
}

const oldRows = (tenantId: number) =>
  t.db.mcpToolCall.count({ where: { tenantId, at: { lt: new Date('2026-03-01T00:00:00Z') } } });

describe('MCP audit pruning', () => {
  it('prunes again at the next flush while batches come back full, then waits the hour', async () => {
    const tenant = await makeTenant(t);
    const writer = createMcpAuditWriter({
      repository: createMcpAuditRepository(t.db, t.statements),
      clock: t.clock,
      logger: createLogger('platform-bridge', 'silent'),
      pruneBatch: BATCH,
    });
    const line = () => ({
      tenantId: tenant.id,
      apiKeyId: tenant.keyId,
      tool: 'get_portfolio',
      ids: {},
      status: 'ok',
      durationMs: 2,
      at: t.clock.now(),
    });
    await insertOld(tenant.id, tenant.keyId, BATCH + BATCH / 2);

    writer.record(line());
    await writer.flush(); // a full batch: BATCH deleted, more left
    expect(await oldRows(tenant.id)).toBe(BATCH / 2);
    writer.record(line());
    await writer.flush(); // the same hour, pruned again: the rest
    expect(await oldRows(tenant.id)).toBe(0);
    // the new lines stay
    expect(await t.db.mcpToolCall.count({ where: { tenantId: tenant.id } })).toBe(2);

    // the last batch was short: the next prune waits the hour
    await insertOld(tenant.id, tenant.keyId, 1);
    writer.record(line());
    await writer.flush();
    expect(await oldRows(tenant.id)).toBe(1);
    t.clock.set('2026-06-15T10:00:00Z');
    writer.record(line());
    await writer.flush();
    expect(await oldRows(tenant.id)).toBe(0);
    expect(await t.db.mcpToolCall.count({ where: { tenantId: tenant.id } })).toBe(4);
  });
});
