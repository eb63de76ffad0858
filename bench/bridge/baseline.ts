// The baseline the bridge is compared with: a bare Express route with no helmet, logging, validation, rate
// limit or Prisma, that does the bridge's work by hand with `pg` and serialises the same JSON shape as
// GET /api/assistant-bridge/portfolio. Like for like, it does the same work per request as the bridge: it
// authenticates the Bearer key (the key's hash, one lookup of the key with its tenant and flags, a constant-time
// comparison, the bridge flag) and reads the tenant's maintained summary row (portfolio_summaries, kept by
// triggers) with the page in one statement; neither caches anything. These two statements are the benchmark's
// only deliberate copy of production logic.
import { timingSafeEqual } from 'node:crypto';
import express, { type Express } from 'express';
import type pg from 'pg';
import { parseKey } from '../../apps/platform-bridge/src/features/auth/api-key-format.ts';

// $1 tenant id, $2 id after which the page starts (keyset), $3 page size + 1 (the extra row says whether
// another page exists). Every row repeats the tenant and summary columns; there is one row with null page
// columns when the page is empty.
export const BASELINE_AUTH_SQL = `
SELECT k.id, k.tenant_id, k.kind, k.secret_hash, k.revoked_at, k.scopes,
       coalesce(array_agg(f.flag) FILTER (WHERE f.enabled), '{}') AS flags
  FROM api_keys k
  JOIN tenants t ON t.id = k.tenant_id
  LEFT JOIN tenant_flags f ON f.tenant_id = t.id
 WHERE k.lookup_prefix = $1
 GROUP BY k.id, t.id`;

export const BASELINE_SQL = `
WITH page AS (
  SELECT p.id, p.ref, p.line1, p.line2, p.town, p.county, p.postcode, p.property_type, p.bedrooms,
         p.letting_status, p.is_hmo, coalesce(r.status, 'valid') AS compliance_status, c.rent_pence,
         c.rent_frequency, p.arrears_pence AS p_arrears_pence, p.units_total AS p_units_total,
         p.units_occupied AS p_units_occupied, c.status AS tenancy_status,
         to_char(c.end_date, 'YYYY-MM-DD') AS tenancy_end_date, c.is_periodic AS tenancy_is_periodic
    FROM (SELECT * FROM properties
           WHERE (tenant_id, id) > ($1, $2) AND (tenant_id, id) <= ($1, 2147483647)
           ORDER BY tenant_id, id
           LIMIT $3) p
    LEFT JOIN LATERAL (
      SELECT t.rent_pence, t.rent_frequency, t.status, t.end_date, t.is_periodic
        FROM tenancies t
       WHERE t.tenant_id = p.tenant_id AND t.property_id = p.id AND t.status <> 'ended'
       ORDER BY t.start_date DESC, t.id DESC
       LIMIT 1) c ON true
    LEFT JOIN property_compliance_rollups r ON r.tenant_id = p.tenant_id AND r.property_id = p.id
)
SELECT tn.slug, tn.name, s.properties_total, s.units_total, s.units_occupied, s.arrears_pence,
       round(s.rent_roll_monthly_pence)::bigint AS rent_roll_monthly_pence, s.valid, s.expiring_soon,
       s.expired, s.missing, s.open_deals, s.pipeline_value_pence, page.*
  FROM tenants tn
  JOIN portfolio_summaries s ON s.tenant_id = tn.id
  LEFT JOIN page ON true
 WHERE tn.id = $1
 ORDER BY page.id`;

export interface KeyRow {
  id: number;
  tenant_id: number;
  kind: string;
  secret_hash: Buffer;
  revoked_at: Date | null;
  scopes: string[];
  flags: string[];
}

/**
 * The baselines' authentication, as the bridge does it: the key's hash, one lookup of the key with its tenant,
 * flags and scopes (a prepared statement named `name`), a constant-time comparison. Undefined: answer 401.
 */
export async function authenticateBaseline(
  pool: pg.Pool,
  authorization: string | undefined,
  name: string,
): Promise<KeyRow | undefined> {
  const key = parseKey((authorization ?? '').slice('Bearer '.length));
  if (!key.ok) return undefined;
  const { rows } = await pool.query<KeyRow>({ name, text: BASELINE_AUTH_SQL, values: [key.lookupPrefix] });
  const k = rows[0];
  const valid =
    k &&
    k.kind === key.kind &&
    !k.revoked_at &&
    k.secret_hash.length === key.hash.length &&
    timingSafeEqual(k.secret_hash, key.hash);
  return valid ? k : undefined;
}

interface Row {
  slug: string;
  name: string;
  properties_total: number;
  units_total: number;
  units_occupied: number;
  arrears_pence: string;
  rent_roll_monthly_pence: string;
  valid: number;
  expiring_soon: number;
  expired: number;
  missing: number;
  open_deals: number;
  pipeline_value_pence: string;
  id: number | null;
  ref: string;
  line1: string;
  line2: string | null;
  town: string;
  county: string | null;
  postcode: string;
  property_type: string;
  bedrooms: number;
  letting_status: string;
  is_hmo: boolean;
  compliance_status: string;
  rent_pence: number | null;
  rent_frequency: string | null;
  p_arrears_pence: number;
  p_units_total: number;
  p_units_occupied: number;
  tenancy_status: string | null;
  tenancy_end_date: string | null;
  tenancy_is_periodic: boolean | null;
}

// The bridge's cursor format (base64url of `p:<last id>`), decoded without validation: this is a baseline.
const decodeCursor = (c: unknown) =>
  typeof c === 'string' ? Number(Buffer.from(c, 'base64url').toString('utf8').slice(2)) : 0;
const encodeCursor = (id: number) => Buffer.from(`p:${id}`).toString('base64url');

export function createBaselineApp(pool: pg.Pool): Express {
  const app = express();
  app.get('/baseline/portfolio', async (req, res) => {
    const k = await authenticateBaseline(pool, req.get('authorization'), 'auth');
    if (!k) {
      res.status(401).end();
      return;
    }
    if (!k.flags.includes('assistant_external_bridge')) {
      res.status(404).end();
      return;
    }
    const tenantId = k.tenant_id;
    const limit = req.query.limit === undefined ? 100 : Number(req.query.limit);
    const { rows } = await pool.query<Row>({
      name: 'portfolio',
      text: BASELINE_SQL,
      values: [tenantId, decodeCursor(req.query.cursor), limit + 1],
    });
    const s = rows[0];
    if (!s) {
      res.status(404).end();
      return;
    }
    const pageRows = s.id === null ? [] : rows.slice(0, limit);
    const last = pageRows[pageRows.length - 1];
    res.json({
      tenant: { slug: s.slug, name: s.name },
      as_of: new Date().toISOString(),
      summary: {
        properties_total: s.properties_total,
        units_total: s.units_total,
        units_occupied: s.units_occupied,
        units_vacant: Math.max(0, s.units_total - s.units_occupied),
        occupancy_rate: s.units_total ? Math.round((s.units_occupied / s.units_total) * 10_000) / 10_000 : 0,
        rent_roll_monthly_pence: Number(s.rent_roll_monthly_pence),
        arrears_pence: Number(s.arrears_pence),
        compliance: {
          valid: s.valid,
          expiring_soon: s.expiring_soon,
          expired: s.expired,
          missing: s.missing,
        },
        open_deals: s.open_deals,
        pipeline_value_pence: Number(s.pipeline_value_pence),
      },
      properties: pageRows.map((p) => ({
        id: p.id,
        ref: p.ref,
        address: { line1: p.line1, line2: p.line2, town: p.town, county: p.county, postcode: p.postcode },
        property_type: p.property_type,
        bedrooms: p.bedrooms,
        letting_status: p.letting_status,
        is_hmo: p.is_hmo,
        compliance_status: p.compliance_status,
        rent_pence: p.rent_pence,
        rent_frequency: p.rent_frequency,
        arrears_pence: p.p_arrears_pence,
        units_total: p.p_units_total,
        units_occupied: p.p_units_occupied,
        tenancy_status: p.tenancy_status,
        tenancy_end_date: p.tenancy_end_date,
        tenancy_is_periodic: p.tenancy_is_periodic,
      })),
      next_cursor: rows.length > limit && last?.id ? encodeCursor(last.id) : null,
    });
  });
  return app;
}
