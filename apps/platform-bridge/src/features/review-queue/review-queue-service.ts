import type {
  ApproveResponse,
  AuditResponse,
  ProposalKind,
  ProposalStatus,
  RejectResponse,
  ReviewQueueResponse,
} from '@pa/contracts';
import { Conflict, NotFound, Unprocessable, ValidationFailed } from '@pa/http-kit';
import type { Clock } from '../../lib/clock.ts';
import type { Prisma, Tx } from '../../lib/db.ts';
import { parseKindedBody } from '../proposals/proposal-body.ts';
import type { ProposalEvents } from '../proposals/proposal-events.ts';
import { adminActor, expiredNote, SYSTEM_ACTOR } from '../proposals/proposal-rules.ts';
import type { RecordWriter } from './record-writer.ts';
import { decodeQueueCursor, encodeQueueCursor } from './review-cursor.ts';
import { toApiAuditEntry } from './review-queue-mapper.ts';
import type { Decision, ReviewQueueRepository } from './review-queue-repository.ts';
import { createReviewItems } from './review-items.ts';

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

// The review queue (docs/bridge-api.md): what a workspace admin sees of the proposals, and their decisions. A decision
// takes the proposal's row lock and re-reads its state inside the transaction that writes the record, the
// status and the audit entry, so racing decisions produce exactly one outcome.
export function createReviewQueueService(deps: {
  queue: ReviewQueueRepository;
  records: RecordWriter;
  /** the events of decisions (proposal.approved, .rejected, .expired) */
  events: ProposalEvents;
  clock: Clock;
}) {
  const { queue, records, events, clock } = deps;
  const items = createReviewItems({ queue, clock });

  /**
   * Closes a proposal still pending (the caller holds its row lock) and writes the audit entry of that step. Under
   * the lock the update always applies: anything else is a bug, not a 409.
   */
  async function close(tenantId: number, id: number, d: Decision, auditNote: string | null, tx: Tx) {
    if (!(await queue.decide(tenantId, id, d, tx))) throw new Error(`proposal ${id} changed under its lock`);
    await queue.addAudit(
      tenantId,
      id,
      {
        at: d.decidedAt,
        actor: d.decidedBy,
        action: d.status,
        fromStatus: 'pending_review',
        toStatus: d.status,
        note: auditNote,
      },
      tx,
    );
    // the signed event of the decision, committed with it (nothing when the tenant's events are off)
    await events.recordDecisions(tx, [{ tenantId, id }]);
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
    await close(
      tenantId,
      id,
      { status: 'expired', decidedAt: now, decidedBy: SYSTEM_ACTOR, decisionNote: note },
      note,
      tx,
    );
    return 'expired';
  }

  /** Runs `write` on the proposal if it can still be decided, in one transaction; else 409 with its status. */
  async function decide<T>(
    tenantId: number,
    id: number,
    write: (tx: Tx, now: Date) => Promise<T>,
  ): Promise<T> {
    const outcome = await queue.inTransaction(
      async (tx): Promise<{ done: T } | { refused: ProposalStatus }> => {
        const taken = await takePending(tenantId, id, tx);
        return taken === 'pending' ? { done: await write(tx, clock.now()) } : { refused: taken };
      },
    );
    // refused after the transaction, so that an expiry found on the way is committed
    if ('refused' in outcome) throw notPending(id, outcome.refused);
    return outcome.done;
  }

  return {
    /** One page of the queue; `canDecide`: the caller may approve and reject (the page shows it the buttons). */
    async list(tenantId: number, query: ReviewQueueQuery, canDecide: boolean): Promise<ReviewQueueResponse> {
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
        can_decide: canDecide,
        items: await items.of(tenantId, page),
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
      const note = request.note?.trim() || null;
      // the audit trail says what the admin changed; the decision note stays the admin's own words
      const editNote = edited.length ? `Edited before approval: ${edited.join(', ')}.` : null;

      const record = await decide(tenantId, id, async (tx, now) => {
        if (propertyId !== null && !(await queue.propertyExists(tenantId, propertyId, tx))) {
          throw new Unprocessable('unknown-property', `Property ${propertyId} is not one of this tenant's.`);
        }
        const created = await records.write(tenantId, id, p, tx);
        const decision: Decision = {
          status: 'approved',
          decidedAt: now,
          decidedBy: adminActor(adminEmail),
          decisionNote: note,
          payload: p.body as Prisma.InputJsonObject,
          propertyId,
          recordType: created.type,
          recordId: created.id,
        };
        await close(tenantId, id, decision, [note, editNote].filter(Boolean).join(' ') || null, tx);
        return created;
      });
      return { proposal_id: id, status: 'approved', record };
    },

    async reject(tenantId: number, adminEmail: string, id: number, reason: string): Promise<RejectResponse> {
      await decide(tenantId, id, (tx, now) =>
        close(
          tenantId,
          id,
          { status: 'rejected', decidedAt: now, decidedBy: adminActor(adminEmail), decisionNote: reason },
          reason,
          tx,
        ),
      );
      return { proposal_id: id, status: 'rejected' };
    },

    async audit(tenantId: number, id: number): Promise<AuditResponse> {
      if (!(await queue.find(tenantId, id))) throw notFound(id);
      const entries = await queue.auditOf(tenantId, id);
      return {
        proposal_id: id,
        entries: entries.map(toApiAuditEntry),
      };
    },
  };
}
export type ReviewQueueService = ReturnType<typeof createReviewQueueService>;
