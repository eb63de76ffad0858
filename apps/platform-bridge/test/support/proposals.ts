import { randomUUID } from 'node:crypto';
import { PROPOSAL_PATH_OF_KIND, type ProposalKind } from '@pa/contracts';
import request from 'supertest';
import type { Express } from 'express';
import { createApp } from '../../src/app.ts';
import type { StatementTransaction } from '../../src/lib/db.ts';
import { createLogger } from '@pa/http-kit';
import { bearer, makeProperty, makeTenant } from './factories.ts';
import type { TestBridge } from './test-app.ts';

export const WRITES_FLAGS = ['assistant_external_bridge', 'assistant_bridge_writes'];

/** A tenant with writes on, a `bridge:propose` key labelled `label`, and one property. */
export async function makeWritingTenant(
  t: TestBridge,
  opts: { flags?: string[]; scopes?: string[]; label?: string } = {},
) {
  const tenant = await makeTenant(t, { flags: opts.flags ?? WRITES_FLAGS, scopes: ['bridge:read'] });
  const key = await t.admin.createKey(
    tenant.slug,
    opts.scopes ?? ['bridge:read', 'bridge:propose'],
    opts.label ?? `assistant of ${tenant.slug}`,
  );
  const property = await makeProperty(t, tenant.id);
  return {
    ...tenant,
    key: key.key,
    keyId: key.id,
    label: opts.label ?? `assistant of ${tenant.slug}`,
    property,
  };
}

export const proposalPath = (kind: ProposalKind) =>
  `/api/assistant-bridge/proposals/${PROPOSAL_PATH_OF_KIND[kind]}`;

/** POST /proposals/<kind> with a fresh Idempotency-Key unless one is given (null: none). */
export function propose(
  app: Express,
  key: string,
  kind: ProposalKind,
  body: unknown,
  idempotencyKey: string | null = randomUUID(),
) {
  const r = request(app)
    .post(proposalPath(kind))
    .set(...bearer(key));
  if (idempotencyKey !== null) r.set('Idempotency-Key', idempotencyKey);
  return r.send(body as object);
}

/** The bridge app on the test's database with other proposal settings (a small quota, another TTL). */
export function appWith(
  t: TestBridge,
  opts: { proposalPendingLimit?: number; proposalTtlDays?: number; transactions?: StatementTransaction },
) {
  return createApp({
    db: t.db,
    statements: t.statements,
    transactions: t.transactions,
    logger: createLogger('platform-bridge', 'silent'),
    clock: t.clock,
    rollup: t.rollup,
    rateLimitPerMin: 100_000,
    ...opts,
  });
}

/** The platform records an approval would create: none may exist before one. */
export async function platformRecords(t: TestBridge, tenantId: number) {
  return {
    deals: await t.db.deal.count({ where: { tenantId } }),
    complianceItems: await t.db.complianceItem.count({ where: { tenantId } }),
    financialLogs: await t.db.financialLog.count({ where: { tenantId } }),
  };
}
