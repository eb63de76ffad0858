// Bulk seeding for the benchmark: a tenant (with the bridge flag and a remote key, made through the app's own
// admin service) and N realistic properties written with set-based INSERT ... SELECT generate_series, so that
// 100,000 properties take seconds rather than the minutes that one Prisma call per row would.
//
// Every property is let with a current tenancy; a third also have an ended earlier tenancy (so "current"
// has to be chosen); each has the statutory items its facts require, minus an occasional missing one, with
// expiry dates spread around today so that valid, expiring-soon and expired statuses all occur; one property
// in eight has a deal (open, won or lost). The values are deterministic functions of the row number.
import type pg from 'pg';
import { createTenantAdminService } from '../../apps/platform-bridge/src/features/tenants/tenant-admin-service.ts';
import type { Db } from '../../apps/platform-bridge/src/lib/db.ts';

export interface SeededTenant {
  id: number;
  slug: string;
  name: string;
  key: string;
  properties: number;
  /** ids of the tenant's properties, ascending (to build deep cursors) */
  firstId: number;
  lastId: number;
  seedMs: number;
  counts: { tenancies: number; complianceItems: number; deals: number };
}

const PROPERTIES_SQL = `
INSERT INTO properties (tenant_id, ref, line1, line2, town, county, postcode, uprn, property_type, bedrooms,
                        bathrooms, tenure, furnishing, council_tax_band, local_authority, is_hmo,
                        hmo_licence_type, max_occupants, has_gas, epc_rating, epc_score, epc_valid_until,
                        letting_status, management_type, units_total, units_occupied, arrears_pence)
SELECT $1,
       'BEN-' || lpad(g::text, 6, '0'),
       (1 + g % 240) || ' ' || (ARRAY['High Street','Station Road','Church Lane','Victoria Road','Mill Lane',
                                      'Park Avenue','Queen Street','King''s Road'])[1 + g % 8],
       CASE WHEN g % 3 = 0 THEN 'Flat ' || (1 + g % 12) END,
       t.town,
       CASE WHEN g % 2 = 0 THEN t.county END,
       t.pc || (1 + g % 20) || ' ' || (1 + g % 9) || chr(65 + g % 26) || chr(65 + (g / 26) % 26),
       CASE WHEN g % 4 <> 0 THEN (100000000000 + g)::text END,
       CASE WHEN g % 20 = 0 THEN 'hmo'
            ELSE (ARRAY['flat','house','maisonette','bungalow','studio'])[1 + g % 5] END,
       CASE WHEN g % 20 = 0 THEN 5 ELSE 1 + g % 4 END,
       CASE WHEN g % 20 = 0 THEN 2 ELSE 1 + g % 2 END,
       CASE WHEN g % 5 IN (0, 4) THEN 'leasehold' ELSE 'freehold' END,
       (ARRAY['unfurnished','part_furnished','furnished'])[1 + g % 3],
       chr(65 + g % 8),
       t.la,
       g % 20 = 0,
       CASE WHEN g % 20 = 0 THEN 'mandatory' END,
       CASE WHEN g % 20 = 0 THEN 6 END,
       g % 7 <> 0,
       (ARRAY['B','C','C','D','D','E'])[1 + g % 6],
       55 + g % 40,
       current_date + (400 + g % 2500),
       CASE WHEN g % 17 = 0 THEN 'notice_given' ELSE 'let' END,
       CASE WHEN g % 4 = 0 THEN 'let_only' ELSE 'managed' END,
       CASE WHEN g % 20 = 0 THEN 5 ELSE 1 END,
       CASE WHEN g % 20 = 0 THEN 3 + g % 3 ELSE 1 END,
       CASE WHEN g % 9 = 0 THEN (1 + g % 40) * 2500 ELSE 0 END
  FROM generate_series(1, $2::int) AS g
  CROSS JOIN LATERAL (SELECT * FROM (VALUES
        (0, 'Manchester', 'Greater Manchester', 'M', 'Manchester City Council'),
        (1, 'Leeds', 'West Yorkshire', 'LS', 'Leeds City Council'),
        (2, 'Bristol', NULL, 'BS', 'Bristol City Council'),
        (3, 'Birmingham', 'West Midlands', 'B', 'Birmingham City Council'),
        (4, 'Sheffield', 'South Yorkshire', 'S', 'Sheffield City Council'),
        (5, 'Nottingham', 'Nottinghamshire', 'NG', 'Nottingham City Council')) AS v(k, town, county, pc, la)
        WHERE v.k = g % 6) AS t
 ORDER BY g`;

// The current tenancy (every property) and, for one in three, an earlier ended one with a different rent.
const TENANCIES_SQL = `
WITH p AS (SELECT id, row_number() OVER (ORDER BY id) AS g FROM properties WHERE tenant_id = $1)
INSERT INTO tenancies (tenant_id, property_id, status, start_date, end_date, is_periodic, rent_pence,
                       rent_frequency, deposit_pence, deposit_scheme, deposit_received_at, deposit_protected_at,
                       prescribed_info_served_at)
SELECT $1, p.id, x.status, x.start_date, x.end_date, x.is_periodic, x.rent_pence, x.rent_frequency,
       x.deposit_pence, x.deposit_scheme, x.deposit_at, x.deposit_at + 5, x.deposit_at + 10
  FROM p
  CROSS JOIN LATERAL (VALUES
    (CASE WHEN p.g % 17 = 0 THEN 'notice_given' ELSE 'active' END,
     current_date - (30 + (p.g * 37) % 1000)::int,
     NULL::date,
     p.g % 5 = 0,
     CASE WHEN p.g % 10 = 0 THEN 20000 + (p.g * 13) % 30000
          WHEN p.g % 25 = 1 THEN 900000 + (p.g * 101) % 1500000
          ELSE 65000 + (p.g * 131) % 180000 END,
     CASE WHEN p.g % 10 = 0 THEN 'weekly' WHEN p.g % 25 = 1 THEN 'annually' ELSE 'monthly' END,
     CASE WHEN p.g % 6 = 0 THEN NULL ELSE 80000 + (p.g * 71) % 150000 END,
     CASE WHEN p.g % 6 = 0 THEN NULL ELSE (ARRAY['dps','mydeposits','tds'])[1 + p.g % 3] END,
     CASE WHEN p.g % 6 = 0 THEN NULL ELSE current_date - (30 + (p.g * 37) % 1000)::int - 7 END),
    ('ended',
     current_date - (1200 + (p.g * 53) % 900)::int,
     current_date - (40 + (p.g * 37) % 1000)::int,
     false,
     55000 + (p.g * 89) % 150000,
     'monthly',
     70000::int,
     'dps',
     current_date - (1200 + (p.g * 53) % 900)::int - 7)
  ) AS x(status, start_date, end_date, is_periodic, rent_pence, rent_frequency, deposit_pence, deposit_scheme,
         deposit_at)
 WHERE x.status <> 'ended' OR p.g % 3 = 0
 ORDER BY p.id, x.start_date`;

// The items each property's facts require (see compliance-rules.ts requiredTypes), one in 40 left out so that
// "missing" occurs. Due dates are spread from 60 days ago to ~4 years ahead.
const ITEMS_SQL = `
WITH p AS (
  SELECT pr.id, pr.is_hmo, pr.has_gas, row_number() OVER (ORDER BY pr.id) AS g,
         t.start_date, t.deposit_pence
    FROM properties pr
    JOIN tenancies t ON t.tenant_id = pr.tenant_id AND t.property_id = pr.id AND t.status <> 'ended'
   WHERE pr.tenant_id = $1)
INSERT INTO compliance_items (tenant_id, property_id, type, reference_number, issue_date, expiry_date,
                              outcome, rating, eicr_c1, eicr_c2, eicr_c3, eicr_fi, contractor_name,
                              contractor_company, contractor_scheme, contractor_registration_number, notes)
SELECT $1, p.id, ty.type,
       upper(left(ty.type, 3)) || '-' || p.id || '-' || ty.k,
       CASE WHEN ty.type IN ('smoke_co_alarms', 'deposit_protection')
            THEN CASE WHEN (p.g + ty.k) % 19 = 0 THEN p.start_date - 60 ELSE p.start_date - 7 END
            ELSE d.due - 365 END,
       CASE WHEN ty.type IN ('smoke_co_alarms', 'deposit_protection') THEN NULL ELSE d.due END,
       CASE WHEN ty.type = 'eicr' THEN CASE WHEN p.g % 31 = 0 THEN 'unsatisfactory' ELSE 'satisfactory' END
            WHEN ty.type = 'gas_safety' THEN 'pass' END,
       CASE WHEN ty.type = 'epc' THEN (ARRAY['B','C','C','D','D','E'])[1 + p.g % 6] END,
       CASE WHEN ty.type = 'eicr' THEN 0 END,
       CASE WHEN ty.type = 'eicr' THEN CASE WHEN p.g % 31 = 0 THEN 1 ELSE 0 END END,
       CASE WHEN ty.type = 'eicr' THEN p.g % 3 END,
       CASE WHEN ty.type = 'eicr' THEN 0 END,
       CASE WHEN ty.type IN ('gas_safety', 'eicr') THEN 'A. Contractor' END,
       CASE WHEN ty.type IN ('gas_safety', 'eicr') THEN 'Safe Homes Ltd' END,
       CASE WHEN ty.type = 'gas_safety' THEN 'gas_safe' WHEN ty.type = 'eicr' THEN 'niceic' END,
       CASE WHEN ty.type IN ('gas_safety', 'eicr') THEN (500000 + p.g % 400000)::text END,
       CASE WHEN (p.g + ty.k) % 11 = 0 THEN 'Checked during the annual inspection.' END
  FROM p
  CROSS JOIN LATERAL (SELECT * FROM unnest(
         ARRAY['eicr','epc','smoke_co_alarms','legionella_risk_assessment','gas_safety','hmo_licence',
               'fire_risk_assessment','deposit_protection']) WITH ORDINALITY AS u(type, k)) AS ty
  CROSS JOIN LATERAL (SELECT current_date + (((p.g * 7919 + ty.k * 104729) % 1500) - 60)::int AS due) AS d
 WHERE (p.g * 3 + ty.k) % 40 <> 0
   AND (ty.type <> 'gas_safety' OR p.has_gas)
   AND (ty.type NOT IN ('hmo_licence', 'fire_risk_assessment') OR p.is_hmo)
   AND (ty.type <> 'deposit_protection' OR coalesce(p.deposit_pence, 0) > 0)
 ORDER BY p.id, ty.k`;

const DEALS_SQL = `
WITH p AS (SELECT id, row_number() OVER (ORDER BY id) AS g FROM properties WHERE tenant_id = $1)
INSERT INTO deals (tenant_id, title, deal_type, stage, status, value_pence, property_id, counterparty,
                   expected_close_date, next_action, next_action_due, source)
SELECT $1,
       'Deal for property ' || p.id,
       (ARRAY['acquisition','disposal','refinance','letting'])[1 + (p.g / 8) % 4],
       (ARRAY['lead','viewing','offer','legal'])[1 + (p.g / 8) % 4],
       CASE WHEN (p.g / 8) % 5 IN (0, 1, 2) THEN 'open' WHEN (p.g / 8) % 5 = 3 THEN 'won' ELSE 'lost' END,
       CASE WHEN (p.g / 8) % 13 = 0 THEN NULL ELSE 5000000 + (p.g * 7907) % 40000000 END,
       p.id,
       'Counterparty ' || (p.g % 97),
       current_date + (p.g % 120)::int,
       'Call the agent',
       current_date + (p.g % 14)::int,
       'manual'
  FROM p
 WHERE p.g % 8 = 0`;

export async function seedTenant(
  pool: pg.Pool,
  db: Db,
  opts: { slug: string; name: string; properties: number },
): Promise<SeededTenant> {
  const started = performance.now();
  const admin = createTenantAdminService({ db });
  const tenant = await admin.createTenant(opts.slug, opts.name);
  await admin.setFlag(opts.slug, 'assistant_external_bridge', true);
  const key = await admin.createKey(opts.slug, ['bridge:read'], 'benchmark');

  // No transaction: each step is followed by ANALYZE so that the next one (and the benchmark's queries) is
  // planned with real statistics, as autovacuum would give a production database; without it the planner
  // believes the tables are empty and picks nested loops that turn the 100,000-property seed quadratic.
  const client = await pool.connect();
  try {
    await client.query(PROPERTIES_SQL, [tenant.id, opts.properties]);
    await client.query('ANALYZE properties');
    const tenancies = (await client.query(TENANCIES_SQL, [tenant.id])).rowCount ?? 0;
    await client.query('ANALYZE tenancies');
    const complianceItems = (await client.query(ITEMS_SQL, [tenant.id])).rowCount ?? 0;
    const deals = (await client.query(DEALS_SQL, [tenant.id])).rowCount ?? 0;
    await client.query('ANALYZE compliance_items, deals');
    const range = await client.query<{ first: number; last: number }>(
      'SELECT min(id) AS first, max(id) AS last FROM properties WHERE tenant_id = $1',
      [tenant.id],
    );
    return {
      id: tenant.id,
      slug: tenant.slug,
      name: tenant.name,
      key: key.key,
      properties: opts.properties,
      firstId: range.rows[0]!.first,
      lastId: range.rows[0]!.last,
      seedMs: performance.now() - started,
      counts: { tenancies, complianceItems, deals },
    };
  } finally {
    client.release();
  }
}
