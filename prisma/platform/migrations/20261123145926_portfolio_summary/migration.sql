-- CreateTable
CREATE TABLE "portfolio_summaries" (
    "tenant_id" INTEGER NOT NULL,
    "properties_total" INTEGER NOT NULL DEFAULT 0,
    "units_total" INTEGER NOT NULL DEFAULT 0,
    "units_occupied" INTEGER NOT NULL DEFAULT 0,
    "arrears_pence" BIGINT NOT NULL DEFAULT 0,
    "rent_roll_monthly_pence" DECIMAL(65,30) NOT NULL DEFAULT 0,
    "valid" INTEGER NOT NULL DEFAULT 0,
    "expiring_soon" INTEGER NOT NULL DEFAULT 0,
    "expired" INTEGER NOT NULL DEFAULT 0,
    "missing" INTEGER NOT NULL DEFAULT 0,
    "rollups_day" DATE,
    "rollups_on_day" INTEGER NOT NULL DEFAULT 0,
    "open_deals" INTEGER NOT NULL DEFAULT 0,
    "pipeline_value_pence" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "portfolio_summaries_pkey" PRIMARY KEY ("tenant_id")
);

-- CreateTable
CREATE TABLE "property_current_rents" (
    "property_id" INTEGER NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "monthly_pence" DECIMAL(65,30) NOT NULL,

    CONSTRAINT "property_current_rents_pkey" PRIMARY KEY ("property_id")
);

-- AddForeignKey
ALTER TABLE "portfolio_summaries" ADD CONSTRAINT "portfolio_summaries_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The triggers below keep portfolio_summaries true in the transaction of every write to the tables it sums, so
-- that no writer (the API, proposal approvals, the demo seed, the CLI, psql) can leave it wrong. They are
-- statement-level with transition tables: a bulk insert of 100,000 properties updates the tenant's row once, not
-- 100,000 times. Each function reads the statement's changed rows as (sign, row...) with +1 for new rows and -1
-- for old ones, so that one aggregate serves inserts, updates and deletes; the transition tables only exist for
-- their own events, hence the query text chosen by TG_OP.

CREATE FUNCTION portfolio_changed_rows(op text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE op
           WHEN 'INSERT' THEN 'SELECT 1 AS sign, n.* FROM new_rows n'
           WHEN 'DELETE' THEN 'SELECT -1 AS sign, o.* FROM old_rows o'
           ELSE 'SELECT 1 AS sign, n.* FROM new_rows n UNION ALL SELECT -1 AS sign, o.* FROM old_rows o'
         END
$$;

-- Every tenant has its row from birth, so that the triggers only ever UPDATE it (and a tenant's deletion, which
-- cascades to its properties, finds nothing to update once the row is gone).
CREATE FUNCTION portfolio_summaries_on_tenants() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO portfolio_summaries (tenant_id) SELECT id FROM new_rows ON CONFLICT (tenant_id) DO NOTHING;
  RETURN NULL;
END $$;

CREATE FUNCTION portfolio_summaries_on_properties() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE 'UPDATE portfolio_summaries s
              SET properties_total = s.properties_total + g.n,
                  units_total = s.units_total + g.units_total,
                  units_occupied = s.units_occupied + g.units_occupied,
                  arrears_pence = s.arrears_pence + g.arrears_pence
             FROM (SELECT c.tenant_id, sum(c.sign) AS n, sum(c.sign * c.units_total) AS units_total,
                          sum(c.sign * c.units_occupied) AS units_occupied,
                          sum(c.sign * c.arrears_pence::bigint) AS arrears_pence
                     FROM (' || portfolio_changed_rows(TG_OP) || ') c
                    GROUP BY c.tenant_id) g
            WHERE s.tenant_id = g.tenant_id
              AND (g.n, g.units_total, g.units_occupied, g.arrears_pence) <> (0, 0, 0, 0)';
  RETURN NULL;
END $$;

-- A property's rent in the summary is its current tenancy's (the latest non-ended by start date, then id),
-- monthly. The tenancies a statement touched name the properties to look at again; the figure each had before
-- is in property_current_rents.
CREATE FUNCTION portfolio_summaries_on_tenancies() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE 'WITH affected AS (
             SELECT DISTINCT c.tenant_id, c.property_id FROM (' || portfolio_changed_rows(TG_OP) || ') c
           ), fresh AS (
             SELECT a.tenant_id, a.property_id, cur.monthly, r.monthly_pence AS before
               FROM affected a
               LEFT JOIN property_current_rents r ON r.property_id = a.property_id
               LEFT JOIN LATERAL (
                     SELECT CASE t.rent_frequency
                              WHEN ''weekly'' THEN t.rent_pence * 52.0 / 12
                              WHEN ''annually'' THEN t.rent_pence / 12.0
                              ELSE t.rent_pence END AS monthly
                       FROM tenancies t
                      WHERE t.tenant_id = a.tenant_id AND t.property_id = a.property_id AND t.status <> ''ended''
                      ORDER BY t.start_date DESC, t.id DESC
                      LIMIT 1) cur ON true
           ), dropped AS (
             DELETE FROM property_current_rents r USING fresh f
              WHERE r.property_id = f.property_id AND f.monthly IS NULL
           ), kept AS (
             INSERT INTO property_current_rents (property_id, tenant_id, monthly_pence)
             SELECT property_id, tenant_id, monthly FROM fresh WHERE monthly IS NOT NULL
             ON CONFLICT (property_id) DO UPDATE
                SET tenant_id = EXCLUDED.tenant_id, monthly_pence = EXCLUDED.monthly_pence
           )
           UPDATE portfolio_summaries s
              SET rent_roll_monthly_pence = s.rent_roll_monthly_pence + g.delta
             FROM (SELECT tenant_id, sum(coalesce(monthly, 0) - coalesce(before, 0)) AS delta
                     FROM fresh GROUP BY tenant_id) g
            WHERE s.tenant_id = g.tenant_id AND g.delta <> 0';
  RETURN NULL;
END $$;

-- Besides the counts, tracks the latest evaluation day and how many rollups carry it (see schema.prisma). When a
-- statement brings a later day, no other row can already carry it, so the count restarts from this statement's.
CREATE FUNCTION portfolio_summaries_on_rollups() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE 'WITH c AS MATERIALIZED (' || portfolio_changed_rows(TG_OP) || ')
           UPDATE portfolio_summaries s
              SET valid = s.valid + g.valid,
                  expiring_soon = s.expiring_soon + g.expiring_soon,
                  expired = s.expired + g.expired,
                  missing = s.missing + g.missing,
                  rollups_day = greatest(s.rollups_day, g.day),
                  rollups_on_day =
                    CASE WHEN s.rollups_day IS NULL OR g.day > s.rollups_day THEN 0 ELSE s.rollups_on_day END
                    + (SELECT coalesce(sum(c.sign), 0) FROM c
                        WHERE c.tenant_id = g.tenant_id AND c.evaluated_on = greatest(s.rollups_day, g.day))
             FROM (SELECT tenant_id, sum(sign * valid) AS valid, sum(sign * expiring_soon) AS expiring_soon,
                          sum(sign * expired) AS expired, sum(sign * missing) AS missing,
                          max(evaluated_on) FILTER (WHERE sign = 1) AS day
                     FROM c GROUP BY tenant_id) g
            WHERE s.tenant_id = g.tenant_id';
  RETURN NULL;
END $$;

CREATE FUNCTION portfolio_summaries_on_deals() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE 'UPDATE portfolio_summaries s
              SET open_deals = s.open_deals + g.n, pipeline_value_pence = s.pipeline_value_pence + g.value
             FROM (SELECT c.tenant_id, sum(c.sign) AS n, coalesce(sum(c.sign * c.value_pence::bigint), 0) AS value
                     FROM (' || portfolio_changed_rows(TG_OP) || ') c
                    WHERE c.status = ''open''
                    GROUP BY c.tenant_id) g
            WHERE s.tenant_id = g.tenant_id AND (g.n, g.value) <> (0, 0)';
  RETURN NULL;
END $$;

CREATE TRIGGER portfolio_summaries_on_insert AFTER INSERT ON tenants
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION portfolio_summaries_on_tenants();

CREATE TRIGGER portfolio_summaries_on_insert AFTER INSERT ON properties
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION portfolio_summaries_on_properties();
CREATE TRIGGER portfolio_summaries_on_update AFTER UPDATE ON properties
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION portfolio_summaries_on_properties();
CREATE TRIGGER portfolio_summaries_on_delete AFTER DELETE ON properties
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION portfolio_summaries_on_properties();

CREATE TRIGGER portfolio_summaries_on_insert AFTER INSERT ON tenancies
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION portfolio_summaries_on_tenancies();
CREATE TRIGGER portfolio_summaries_on_update AFTER UPDATE ON tenancies
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION portfolio_summaries_on_tenancies();
CREATE TRIGGER portfolio_summaries_on_delete AFTER DELETE ON tenancies
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION portfolio_summaries_on_tenancies();

CREATE TRIGGER portfolio_summaries_on_insert AFTER INSERT ON property_compliance_rollups
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION portfolio_summaries_on_rollups();
CREATE TRIGGER portfolio_summaries_on_update AFTER UPDATE ON property_compliance_rollups
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION portfolio_summaries_on_rollups();
CREATE TRIGGER portfolio_summaries_on_delete AFTER DELETE ON property_compliance_rollups
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION portfolio_summaries_on_rollups();

CREATE TRIGGER portfolio_summaries_on_insert AFTER INSERT ON deals
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION portfolio_summaries_on_deals();
CREATE TRIGGER portfolio_summaries_on_update AFTER UPDATE ON deals
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION portfolio_summaries_on_deals();
CREATE TRIGGER portfolio_summaries_on_delete AFTER DELETE ON deals
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION portfolio_summaries_on_deals();

-- Existing data: the same figures, computed once.
INSERT INTO property_current_rents (property_id, tenant_id, monthly_pence)
SELECT DISTINCT ON (t.property_id) t.property_id, t.tenant_id,
       CASE t.rent_frequency WHEN 'weekly' THEN t.rent_pence * 52.0 / 12
                             WHEN 'annually' THEN t.rent_pence / 12.0
                             ELSE t.rent_pence END
  FROM tenancies t
 WHERE t.status <> 'ended'
 ORDER BY t.property_id, t.start_date DESC, t.id DESC;

INSERT INTO portfolio_summaries (tenant_id, properties_total, units_total, units_occupied, arrears_pence,
                                 rent_roll_monthly_pence, valid, expiring_soon, expired, missing,
                                 rollups_day, rollups_on_day, open_deals, pipeline_value_pence)
SELECT t.id, coalesce(p.n, 0), coalesce(p.units_total, 0), coalesce(p.units_occupied, 0), coalesce(p.arrears, 0),
       coalesce(rent.monthly, 0), coalesce(r.valid, 0), coalesce(r.expiring_soon, 0), coalesce(r.expired, 0),
       coalesce(r.missing, 0), r.day,
       (SELECT count(*) FROM property_compliance_rollups x WHERE x.tenant_id = t.id AND x.evaluated_on = r.day),
       coalesce(d.n, 0), coalesce(d.value, 0)
  FROM tenants t
  LEFT JOIN (SELECT tenant_id, count(*) AS n, sum(units_total) AS units_total, sum(units_occupied) AS units_occupied,
                    sum(arrears_pence) AS arrears
               FROM properties GROUP BY tenant_id) p ON p.tenant_id = t.id
  LEFT JOIN (SELECT tenant_id, sum(monthly_pence) AS monthly FROM property_current_rents GROUP BY tenant_id) rent
         ON rent.tenant_id = t.id
  LEFT JOIN (SELECT tenant_id, sum(valid) AS valid, sum(expiring_soon) AS expiring_soon, sum(expired) AS expired,
                    sum(missing) AS missing, max(evaluated_on) AS day
               FROM property_compliance_rollups GROUP BY tenant_id) r ON r.tenant_id = t.id
  LEFT JOIN (SELECT tenant_id, count(*) AS n, sum(value_pence) AS value
               FROM deals WHERE status = 'open' GROUP BY tenant_id) d ON d.tenant_id = t.id;
