import type { AuditChannel } from '@pa/contracts';
import type { StatementRunner, StatementTransaction } from '../../lib/db.ts';

// A proposal's submission: the hot write path, one transaction of named statements (StatementTransaction: prepared
// on PostgreSQL's pool, Prisma's raw queries on the embedded database). Every statement names the tenant first and
// selects plain values only (bytes as hex, timestamps as epoch milliseconds, JSON as text), so that both ways of
// running it return the same JavaScript values.

// Two-int advisory locks of this namespace serialise one tenant's quota check; the bigint locks of
// Idempotency-Keys live in a separate key space, so the two never meet.
const QUOTA_LOCK_NAMESPACE = 0x5051; // "PQ"

const TRY_LOCK_KEY = {
  name: 'proposal_try_lock_key',
  text: `SELECT pg_try_advisory_xact_lock($1::bigint) AS locked`,
};

const LOOKUP = {
  name: 'proposal_lookup',
  text: `
    SELECT encode(i.fingerprint, 'hex') AS fingerprint, i.response_status, i.response_body::text AS response_body,
           (extract(epoch FROM i.created_at) * 1000)::float8 AS created_ms,
           (SELECT label FROM api_keys WHERE tenant_id = $1 AND id = $4) AS label,
           EXISTS (SELECT 1 FROM properties WHERE tenant_id = $1 AND id = $5) AS property_found,
           (SELECT to_char(expiry_date, 'YYYY-MM-DD') FROM compliance_items
             WHERE tenant_id = $1 AND property_id = $5 AND type = $6::text) AS current_expiry
      FROM (SELECT 1) one
      LEFT JOIN idempotency_keys i ON i.tenant_id = $1 AND i.endpoint = $2 AND i.key = $3`,
};

// The proposal, its `submitted` audit entry and the key's record of the answer in one statement. The key's record
// replaces one past its lifetime that the sweep has not removed yet (a live one was replayed before this runs).
const INSERT = {
  name: 'proposal_insert',
  text: `
    WITH proposal AS (
      INSERT INTO proposals (tenant_id, kind, status, payload, review_notes, property_id, api_key_id, submitted_by,
                             created_at, expires_at)
      VALUES ($1, $2, 'pending_review', $3::jsonb, $4, $5, $6, $7, $8::timestamptz, $9::timestamptz)
      RETURNING id, created_at
    ), audit AS (
      INSERT INTO audit_entries (tenant_id, proposal_id, at, actor, action, from_status, to_status, note, channel)
      SELECT $1, id, created_at, $7, 'submitted', NULL, 'pending_review', $4, $15 FROM proposal
    )
    INSERT INTO idempotency_keys AS i (tenant_id, endpoint, key, fingerprint, response_status, response_body,
                                       created_at)
    SELECT $1, $10, $11, decode($12, 'hex'), $13, $14::jsonb || jsonb_build_object('proposal_id', id), created_at
      FROM proposal
    ON CONFLICT (tenant_id, endpoint, key) DO UPDATE
      SET fingerprint = EXCLUDED.fingerprint, response_status = EXCLUDED.response_status,
          response_body = EXCLUDED.response_body, created_at = EXCLUDED.created_at
    RETURNING (i.response_body->>'proposal_id')::int AS id`,
};

const LOCK_QUOTA = {
  name: 'proposal_lock_quota',
  text: `SELECT pg_advisory_xact_lock(${QUOTA_LOCK_NAMESPACE}, $1::int)::text AS locked`,
};

// A statement of its own after the lock, so that its snapshot includes every submission committed before.
const COUNT_PENDING = {
  name: 'proposal_count_pending',
  text: `
    SELECT count(*)::int AS n FROM (
      SELECT 1 FROM proposals WHERE tenant_id = $1 AND status = 'pending_review' LIMIT $2
    ) pending`,
};

export interface StoredAnswer {
  fingerprint: Buffer;
  status: number;
  body: unknown;
  createdAt: Date;
}

export interface NewSubmission {
  kind: string;
  payload: unknown;
  reviewNotes: string | null;
  propertyId: number | null;
  apiKeyId: number;
  submittedBy: string;
  createdAt: Date;
  expiresAt: Date;
  /** the Idempotency-Key's record */
  endpoint: string;
  key: string;
  fingerprint: Uint8Array;
  status: number;
  /** the answer without `proposal_id`, which the statement adds */
  body: Record<string, unknown>;
  /** how the key reached the platform, for the audit entry */
  channel: AuditChannel;
}

export function createSubmissionRepository(transaction: StatementTransaction) {
  return {
    /** Runs a submission's statements in one transaction. */
    transaction,

    /**
     * Takes the key's advisory lock (its id drawn from tenant, endpoint and key) for the rest of the transaction;
     * false when another transaction holds it.
     */
    tryLockKey: async (lockId: bigint, run: StatementRunner): Promise<boolean> =>
      (await run<{ locked: boolean }>(TRY_LOCK_KEY, [lockId.toString()]))[0]!.locked,

    /**
     * After the key's lock, in one round trip: the answer stored under the key (whatever its age), the submitting
     * key's label, and whether the property is the tenant's.
     */
    lookup: async (
      tenantId: number,
      q: {
        endpoint: string;
        key: string;
        keyId: number;
        propertyId: number | null;
        /** a compliance update's type: the answer then carries the expiry of the item it would replace */
        complianceType: string | null;
      },
      run: StatementRunner,
    ): Promise<{
      stored: StoredAnswer | null;
      label: string | null;
      propertyFound: boolean;
      currentExpiry: string | null;
    }> => {
      const [row] = await run<{
        fingerprint: string | null;
        response_status: number | null;
        response_body: string | null;
        created_ms: number | null;
        label: string | null;
        property_found: boolean;
        current_expiry: string | null;
      }>(LOOKUP, [tenantId, q.endpoint, q.key, q.keyId, q.propertyId ?? 0, q.complianceType]);
      return {
        stored:
          row!.response_status === null
            ? null
            : {
                fingerprint: Buffer.from(row!.fingerprint!, 'hex'),
                status: row!.response_status,
                body: JSON.parse(row!.response_body!) as unknown,
                createdAt: new Date(row!.created_ms!),
              },
        label: row!.label,
        propertyFound: row!.property_found,
        currentExpiry: row!.current_expiry,
      };
    },

    /** Writes the proposal, its audit entry and the key's record; returns the proposal's id. */
    insert: async (tenantId: number, s: NewSubmission, run: StatementRunner): Promise<number> =>
      (
        await run<{ id: number }>(INSERT, [
          tenantId,
          s.kind,
          JSON.stringify(s.payload),
          s.reviewNotes,
          s.propertyId,
          s.apiKeyId,
          s.submittedBy,
          s.createdAt.toISOString(),
          s.expiresAt.toISOString(),
          s.endpoint,
          s.key,
          Buffer.from(s.fingerprint).toString('hex'),
          s.status,
          JSON.stringify(s.body),
          s.channel,
        ])
      )[0]!.id,

    /**
     * How many of the tenant's proposals wait for review (at most `upTo`), counted under the tenant's quota lock,
     * held to the end of the transaction, so that concurrent submissions count one after the other.
     */
    lockAndCountPending: async (tenantId: number, upTo: number, run: StatementRunner): Promise<number> => {
      await run(LOCK_QUOTA, [tenantId]);
      return (await run<{ n: number }>(COUNT_PENDING, [tenantId, upTo]))[0]!.n;
    },
  };
}
export type SubmissionRepository = ReturnType<typeof createSubmissionRepository>;
