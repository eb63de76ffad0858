// The baseline of POST /api/assistant-bridge/proposals/deal: bare Express and `pg`, no helmet, logging, rate limit
// or Prisma. Like for like, it does the bridge's work per request: the same authentication as the portfolio
// baseline (the key's hash, one lookup of the key with its tenant, flags and scopes, a constant-time comparison)
// plus the writes flag and the `bridge:propose` scope; the body parsed by the same contract schema (its defaults
// are the stored payload); then one transaction with the bridge's steps as prepared statements: the key's advisory
// lock, its stored answer, the key's label and the property, the proposal, its audit entry, the idempotency record,
// and the tenant's quota count under its lock. Fewer statements would be possible by hand; the same ones keep the
// comparison about the framework, not the algorithm.
import { DealProposalBody, ProposalCreated } from '@pa/contracts';
import express, { type Express } from 'express';
import type pg from 'pg';
import { authenticateBaseline } from './baseline.ts';
import {
  bodyFingerprint,
  idempotencyLockId,
  parseIdempotencyKey,
} from '../../apps/platform-bridge/src/lib/idempotency-key.ts';

const TTL_MS = 14 * 86_400_000;
const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;
const PENDING_LIMIT = Number(process.env.BENCH_PROPOSAL_LIMIT ?? 1_000_000);

const q = (client: pg.PoolClient, name: string, text: string, values: unknown[]) =>
  client.query({ name, text, values });

export function addBaselineProposalRoute(app: Express, pool: pg.Pool): void {
  app.post('/baseline/proposals/deal', express.json({ limit: '64kb' }), async (req, res) => {
    const k = await authenticateBaseline(pool, req.get('authorization'), 'auth_propose');
    if (!k) {
      res.status(401).end();
      return;
    }
    if (!k.flags.includes('assistant_external_bridge') || !k.flags.includes('assistant_bridge_writes')) {
      res.status(404).end();
      return;
    }
    if (!k.scopes.includes('bridge:propose') || !req.is('application/json')) {
      res.status(403).end();
      return;
    }
    const parsed = DealProposalBody.safeParse(req.body);
    if (!parsed.success) {
      res.status(400).end();
      return;
    }
    const idempotencyKey = parseIdempotencyKey(req.get('idempotency-key'));
    const body = parsed.data;
    const tenantId = k.tenant_id;
    const fingerprint = Buffer.from(bodyFingerprint(req.body));
    const now = new Date();

    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const lockId = idempotencyLockId(tenantId, 'deal', idempotencyKey).toString();
      const lock = await q(client, 'p_lock', 'SELECT pg_try_advisory_xact_lock($1::bigint) AS locked', [
        lockId,
      ]);
      if (!lock.rows[0].locked) {
        await client.query('ROLLBACK');
        res.status(409).end();
        return;
      }
      const stored = await q(
        client,
        'p_find',
        `SELECT fingerprint, response_status, response_body, created_at FROM idempotency_keys
          WHERE tenant_id = $1 AND endpoint = $2 AND key = $3`,
        [tenantId, 'deal', idempotencyKey],
      );
      const row = stored.rows[0] as
        | {
            fingerprint: Buffer;
            response_status: number;
            response_body: { proposal_id: number };
            created_at: Date;
          }
        | undefined;
      if (row && row.created_at.getTime() > now.getTime() - IDEMPOTENCY_TTL_MS) {
        await client.query('ROLLBACK');
        if (!row.fingerprint.equals(fingerprint)) {
          res.status(422).end();
          return;
        }
        res
          .status(row.response_status)
          .set('Idempotent-Replayed', 'true')
          .location(`/api/assistant-bridge/proposals/${row.response_body.proposal_id}`)
          .json(ProposalCreated.parse(row.response_body)); // jsonb's key order back to the contract's
        return;
      }
      const check = await q(
        client,
        'p_check',
        `SELECT (SELECT label FROM api_keys WHERE tenant_id = $1 AND id = $2) AS label,
                EXISTS (SELECT 1 FROM properties WHERE tenant_id = $1 AND id = $3) AS property_found`,
        [tenantId, k.id, body.property_id ?? 0],
      );
      const { label, property_found } = check.rows[0] as { label: string | null; property_found: boolean };
      if (body.property_id !== null && !property_found) {
        await client.query('ROLLBACK');
        res.status(422).end();
        return;
      }
      const actor = label ?? `API key #${k.id}`;
      const expiresAt = new Date(now.getTime() + TTL_MS);
      const inserted = await q(
        client,
        'p_insert',
        `INSERT INTO proposals (tenant_id, kind, status, payload, review_notes, property_id, api_key_id,
                                submitted_by, created_at, expires_at)
         VALUES ($1, 'deal', 'pending_review', $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
        [tenantId, body, body.review_notes ?? null, body.property_id, k.id, actor, now, expiresAt],
      );
      const id = (inserted.rows[0] as { id: number }).id;
      await q(
        client,
        'p_audit',
        `INSERT INTO audit_entries (tenant_id, proposal_id, at, actor, action, from_status, to_status, note)
         VALUES ($1, $2, $3, $4, 'submitted', NULL, 'pending_review', $5)`,
        [tenantId, id, now, actor, body.review_notes ?? null],
      );
      const answer = {
        proposal_id: id,
        status: 'pending_review',
        kind: 'deal',
        created_at: now.toISOString(),
        expires_at: expiresAt.toISOString(),
      };
      await q(
        client,
        'p_key',
        `INSERT INTO idempotency_keys (tenant_id, endpoint, key, fingerprint, response_status, response_body, created_at)
         VALUES ($1, 'deal', $2, $3, 201, $4, $5)
         ON CONFLICT (tenant_id, endpoint, key) DO UPDATE
           SET fingerprint = EXCLUDED.fingerprint, response_status = 201, response_body = EXCLUDED.response_body,
               created_at = EXCLUDED.created_at`,
        [tenantId, idempotencyKey, fingerprint, answer, now],
      );
      await q(client, 'p_quota_lock', 'SELECT pg_advisory_xact_lock(20561, $1::int)', [tenantId]);
      const count = await q(
        client,
        'p_quota',
        `SELECT count(*)::int AS n FROM (SELECT 1 FROM proposals
           WHERE tenant_id = $1 AND status = 'pending_review' LIMIT $2) pending`,
        [tenantId, PENDING_LIMIT + 1],
      );
      if ((count.rows[0] as { n: number }).n > PENDING_LIMIT) {
        await client.query('ROLLBACK');
        res.status(429).end();
        return;
      }
      await client.query('COMMIT');
      res.status(201).location(`/api/assistant-bridge/proposals/${id}`).json(answer);
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      client.release();
    }
  });
}
