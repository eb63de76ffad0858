import { type AuditChannel, PROPOSAL_BODY_OF_KIND, type ProposalKind } from '@pa/contracts';
import { proposalExpiresAt } from '../../src/features/proposals/proposal-rules.ts';
import type { Prisma } from '../../src/lib/db.ts';
import { makeTenant } from './factories.ts';
import type { TestBridge } from './test-app.ts';

// The review queue's tests write proposals as the submission endpoint stores them (built in parallel): the body
// parsed by its kind's contract schema, defaults filled in, and a `submitted` audit entry by the remote key (over
// REST unless `channel` says MCP).

export const SUBMITTER = 'test assistant';

export async function makeProposal(
  t: TestBridge,
  tenantId: number,
  kind: ProposalKind,
  body: Record<string, unknown>,
  opts: { createdAt?: Date; submittedBy?: string; channel?: AuditChannel } = {},
) {
  const payload = PROPOSAL_BODY_OF_KIND[kind].parse(body);
  const createdAt = opts.createdAt ?? t.clock.now();
  const reviewNotes = 'review_notes' in payload ? (payload.review_notes ?? null) : null;
  const submittedBy = opts.submittedBy ?? SUBMITTER;
  const proposal = await t.db.proposal.create({
    data: {
      tenantId,
      kind,
      status: 'pending_review',
      payload: payload as Prisma.InputJsonObject,
      reviewNotes,
      propertyId: payload.property_id,
      submittedBy,
      createdAt,
      expiresAt: proposalExpiresAt(createdAt),
    },
  });
  await t.db.auditEntry.create({
    data: {
      tenantId,
      proposalId: proposal.id,
      at: createdAt,
      actor: submittedBy,
      action: 'submitted',
      fromStatus: null,
      toStatus: 'pending_review',
      note: reviewNotes,
      channel: opts.channel ?? 'rest',
    },
  });
  return proposal;
}

export type ReviewTenant = Awaited<ReturnType<typeof makeTenant>> & {
  adminKey: string;
  adminKeyId: number;
  adminEmail: string;
};

/** A tenant with the bridge and review-queue flags on, a remote key and an admin key (both scopes unless told). */
export async function makeReviewTenant(
  t: TestBridge,
  opts: { flags?: string[]; adminScopes?: string[] } = {},
): Promise<ReviewTenant> {
  const tenant = await makeTenant(t, {
    flags: opts.flags ?? ['assistant_external_bridge', 'assistant_bridge_review_queue'],
  });
  const adminEmail = `admin@${tenant.slug}.example`;
  const admin = await t.admin.createAdmin(tenant.slug, adminEmail, opts.adminScopes);
  return { ...tenant, adminKey: admin.key, adminKeyId: admin.id, adminEmail };
}
