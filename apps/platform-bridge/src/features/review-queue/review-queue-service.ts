import type {
  ApproveResponse,
  AuditResponse,
  ProposalKind,
  ProposalStatus,
  RejectResponse,
  ReviewItem,
  ReviewQueueResponse,
} from '@pa/contracts';
import { Conflict, NotFound, Unprocessable, ValidationFailed } from '@pa/http-kit';
import type { Proposal } from '../../generated/prisma/client.ts';
import { type Clock, londonDate } from '../../lib/clock.ts';
import type { Prisma, Tx } from '../../lib/db.ts';
import { toRulesProperty } from '../compliance/compliance-mapper.ts';
import { toAddress } from '../properties/property-mapper.ts';
import { adminActor, expiredNote, RECORD_TYPE_OF_KIND, SYSTEM_ACTOR } from '../proposals/proposal-rules.ts';
import { type KindedBody, parseKindedBody, storedBody } from './proposal-body.ts';
import {
  complianceFieldsAfter,
  complianceFieldsOf,
  dealFields,
  diffFields,
  financialLogFields,
} from './proposal-effects.ts';
import { proposalSummary } from './proposal-summary.ts';
import type { RecordWriter } from './record-writer.ts';
import { decodeQueueCursor, encodeQueueCursor } from './review-cursor.ts';
import type { Decision, ReviewQueueRepository } from './review-queue-repository.ts';
import { amountWindow, normaliseTitle, reviewWarnings } from './review-warnings.ts';

export interface ReviewQueueQuery {
  status: ProposalStatus | 'all';
  kind: ProposalKind | 'all';
  limit: number;
  cursor?: string | undefined;
}

const notFound = (id: number) => new NotFound('proposal-not-found', `No proposal with id ${id}.`);
const notPending = (id: number, status: ProposalStatus) =>
  new Conflict(
    'proposal-not-pending',
    `Proposal ${id} is ${status.replaceAll('_', ' ')}, no longer pending review.`,
    {
      current_status: status,
    },
  );

/** The edited body's problems, pointing into the request's `edits` (`#/edits/<field>`). */
function editErrors(issues: Array<{ code: string; path: PropertyKey[]; message: string; keys?: string[] }>) {
  const pointer = (path: PropertyKey[]) =>
    `#/${['edits', ...path].map((p) => String(p).replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;
  return issues.flatMap((i) =>
    i.code === 'unrecognized_keys' && i.keys
      ? i.keys.map((k) => ({ pointer: pointer([...i.path, k]), detail: 'is not a known field' }))
      : [{ pointer: pointer(i.path), detail: i.message }],
  );
}

// The review queue (SPEC §2.6): what a workspace admin sees of the proposals, and their decisions. A decision
// takes the proposal's row lock and re-reads its state inside the transaction that writes the record, the
// status and the audit entry, so racing decisions produce exactly one outcome.
export function createReviewQueueService(deps: {
  queue: ReviewQueueRepository;
  records: RecordWriter;
  clock: Clock;
}) {
  const { queue, records, clock } = deps;

  async function toItems(tenantId: number, rows: Proposal[]): Promise<ReviewItem[]> {
    const today = londonDate(clock.now());
    const parsed = rows.map((row) => ({ row, p: storedBody(row.kind as ProposalKind, row.payload) }));
    const pending = parsed.filter(({ row }) => row.status === 'pending_review');

    const propertyIds = [...new Set(rows.flatMap((r) => (r.propertyId === null ? [] : [r.propertyId])))];
    const titles = pending.flatMap(({ p }) => (p.kind === 'deal' ? [normaliseTitle(p.body.title)] : []));
    const logProperties = pending.flatMap(({ p }) =>
      p.kind === 'financial_log' ? [p.body.property_id] : [],
    );
    const [since, until] = amountWindow(today);
    const [properties, sameTitle, amounts] = await Promise.all([
      queue.properties(tenantId, propertyIds),
      queue.openDealsTitled(tenantId, [...new Set(titles)]),
      queue.amountStats(tenantId, [...new Set(logProperties)], since, until),
    ]);
    const propertyById = new Map(properties.map((p) => [p.id, p]));

    return parsed.map(({ row, p }) => {
      const property = row.propertyId === null ? undefined : propertyById.get(row.propertyId);
      let diff: ReviewItem['diff'] = [];
      let warnings: ReviewItem['warnings'] = [];
      // What approval would change is only worked out while it can still happen.
      if (row.status === 'pending_review') {
        const current =
          p.kind === 'compliance_update'
            ? (property?.complianceItems.find((i) => i.type === p.body.compliance_type) ?? null)
            : null;
        diff = diffOf(p, current);
        warnings = reviewWarnings(p, {
          today,
          propertyMissing: row.propertyId !== null && !property,
          compliance: property && { property: toRulesProperty(property), current },
          sameTitleDeals:
            p.kind === 'deal' ? sameTitle.filter((d) => d.key === normaliseTitle(p.body.title)) : [],
          amounts:
            p.kind === 'financial_log'
              ? amounts.find((a) => a.propertyId === p.body.property_id && a.category === p.body.category)
              : undefined,
        });
      }
      return {
        proposal_id: row.id,
        kind: p.kind,
        status: row.status as ProposalStatus,
        summary: proposalSummary(p, property?.ref ?? null),
        payload: p.body,
        review_notes: row.reviewNotes,
        submitted_by: row.submittedBy,
        created_at: row.createdAt.toISOString(),
        expires_at: row.expiresAt.toISOString(),
        decided_at: row.decidedAt?.toISOString() ?? null,
        decided_by: row.decidedBy,
        decision_note: row.decisionNote,
        property: property ? { id: property.id, ref: property.ref, address: toAddress(property) } : null,
        diff,
        warnings,
        record:
          row.recordType && row.recordId !== null
            ? { type: row.recordType as NonNullable<ReviewItem['record']>['type'], id: row.recordId }
            : null,
      };
    });
  }

  function diffOf(p: KindedBody, current: Parameters<typeof complianceFieldsOf>[0] | null) {
    switch (p.kind) {
      case 'deal':
        return diffFields(null, dealFields(p.body));
      case 'financial_log':
        return diffFields(null, financialLogFields(p.body));
      case 'compliance_update':
        return diffFields(current && complianceFieldsOf(current), complianceFieldsAfter(p.body));
    }
  }

  /** The decision's update; under the row lock it always applies, and anything else is a bug, not a 409. */
  async function applyDecision(tenantId: number, id: number, d: Decision, tx: Tx) {
    if (!(await queue.decide(tenantId, id, d, tx))) throw new Error(`proposal ${id} changed under its lock`);
  }

  /**
   * Locks a proposal for a decision and checks that it can still be decided. One past its expiry is closed as
   * expired on the spot (what the expiry sweep would do); the caller commits that and then refuses.
   */
  async function takePending(tenantId: number, id: number, tx: Tx): Promise<'pending' | ProposalStatus> {
    const locked = await queue.lock(tenantId, id, tx);
    if (!locked) throw notFound(id);
    if (locked.status !== 'pending_review') return locked.status;
    const now = clock.now();
    if (locked.expires_at.getTime() > now.getTime()) return 'pending';
    const ttlDays = Math.round((locked.expires_at.getTime() - locked.created_at.getTime()) / 86_400_000);
    const note = expiredNote(ttlDays);
    await applyDecision(
      tenantId,
      id,
      { status: 'expired', decidedAt: now, decidedBy: SYSTEM_ACTOR, decisionNote: note },
      tx,
    );
    await queue.addAudit(
      tenantId,
      id,
      {
        at: now,
        actor: SYSTEM_ACTOR,
        action: 'expired',
        fromStatus: 'pending_review',
        toStatus: 'expired',
        note,
      },
      tx,
    );
    return 'expired';
  }

  async function decide(
    tenantId: number,
    id: number,
    write: (tx: Tx, now: Date) => Promise<void>,
  ): Promise<void> {
    const state = await queue.inTransaction(async (tx) => {
      const taken = await takePending(tenantId, id, tx);
      if (taken === 'pending') await write(tx, clock.now());
      return taken;
    });
    // refused after the transaction, so that an expiry found on the way is committed
    if (state !== 'pending') throw notPending(id, state);
  }

  return {
    async list(tenantId: number, query: ReviewQueueQuery): Promise<ReviewQueueResponse> {
      const order = query.status === 'pending_review' ? 'expiry_asc' : 'created_desc';
      const rows = await queue.listPage(tenantId, {
        status: query.status,
        kind: query.kind,
        order,
        after: decodeQueueCursor(query.cursor),
        take: query.limit + 1,
      });
      const page = rows.slice(0, query.limit);
      const last = page[page.length - 1];
      return {
        items: await toItems(tenantId, page),
        next_cursor:
          rows.length > query.limit && last
            ? encodeQueueCursor({ at: order === 'expiry_asc' ? last.expiresAt : last.createdAt, id: last.id })
            : null,
      };
    },

    async approve(
      tenantId: number,
      adminEmail: string,
      id: number,
      request: { note?: string | undefined; edits?: Record<string, unknown> | undefined },
    ): Promise<ApproveResponse> {
      const found = await queue.find(tenantId, id);
      if (!found) throw notFound(id);
      if (found.status !== 'pending_review') throw notPending(id, found.status as ProposalStatus);
      const kind = found.kind as ProposalKind;
      const edits = request.edits ?? {};
      const edited = Object.keys(edits);
      // The payload is the submitted body with its defaults; the edits replace fields of it and the result must
      // pass the kind's schema again, exactly as a submission would.
      const parsed = parseKindedBody(kind, { ...(found.payload as Record<string, unknown>), ...edits });
      if (!parsed.success) {
        throw new ValidationFailed(editErrors(parsed.issues), 'The edited proposal is not valid.');
      }
      const p = parsed.data;
      if (p.kind === 'financial_log' && p.body.net_pence + p.body.vat_pence > 2_147_483_647) {
        throw new ValidationFailed(
          [{ pointer: '#/edits/vat_pence', detail: 'net and VAT together must be at most 2147483647 pence' }],
          'The edited proposal is not valid.',
        );
      }
      const propertyId = p.body.property_id;

      let record: ApproveResponse['record'] | undefined;
      await decide(tenantId, id, async (tx, now) => {
        if (propertyId !== null && !(await queue.propertyExists(tenantId, propertyId, tx))) {
          throw new Unprocessable('unknown-property', `Property ${propertyId} is not one of this tenant's.`);
        }
        record = await records.write(tenantId, id, p, tx);
        const actor = adminActor(adminEmail);
        await applyDecision(
          tenantId,
          id,
          {
            status: 'approved',
            decidedAt: now,
            decidedBy: actor,
            decisionNote: request.note ?? null,
            payload: p.body as Prisma.InputJsonObject,
            recordType: RECORD_TYPE_OF_KIND[kind],
            recordId: record.id,
          },
          tx,
        );
        const editNote = edited.length ? `Edited before approval: ${edited.join(', ')}.` : null;
        const note = [request.note, editNote].filter(Boolean).join(' ') || null;
        await queue.addAudit(
          tenantId,
          id,
          { at: now, actor, action: 'approved', fromStatus: 'pending_review', toStatus: 'approved', note },
          tx,
        );
      });
      return { proposal_id: id, status: 'approved', record: record! };
    },

    async reject(tenantId: number, adminEmail: string, id: number, reason: string): Promise<RejectResponse> {
      await decide(tenantId, id, async (tx, now) => {
        const actor = adminActor(adminEmail);
        await applyDecision(
          tenantId,
          id,
          { status: 'rejected', decidedAt: now, decidedBy: actor, decisionNote: reason },
          tx,
        );
        await queue.addAudit(
          tenantId,
          id,
          {
            at: now,
            actor,
            action: 'rejected',
            fromStatus: 'pending_review',
            toStatus: 'rejected',
            note: reason,
          },
          tx,
        );
      });
      return { proposal_id: id, status: 'rejected' };
    },

    async audit(tenantId: number, id: number): Promise<AuditResponse> {
      if (!(await queue.find(tenantId, id))) throw notFound(id);
      const entries = await queue.auditOf(tenantId, id);
      return {
        proposal_id: id,
        entries: entries.map((e) => ({
          at: e.at.toISOString(),
          actor: e.actor,
          action: e.action as AuditResponse['entries'][number]['action'],
          from_status: e.fromStatus as ProposalStatus | null,
          to_status: e.toStatus as ProposalStatus,
          note: e.note,
        })),
      };
    },
  };
}
export type ReviewQueueService = ReturnType<typeof createReviewQueueService>;
