-- The daily evaluation of a tenant's compliance rewrites only the rollups whose figures changed, and a first
-- evaluation writes rollups only (schema.prisma, PropertyComplianceRollup). Figures at 100,000 properties are in
-- bench/bridge/README.md.

-- The types whose item each rollup saw expiring soon and expired, in place of compliance_items.notified_status
-- (which held the same fact per item, and made a first evaluation update tens of thousands of item rows). The
-- bits are rollup-statement.ts's TYPE_BITS.
ALTER TABLE "property_compliance_rollups" ADD COLUMN "expiring_types" INTEGER NOT NULL DEFAULT 0,
                                          ADD COLUMN "expired_types" INTEGER NOT NULL DEFAULT 0;
WITH noted AS (
  SELECT i.property_id,
         bit_or(b.bit) FILTER (WHERE i.notified_status = 'expiring_soon') AS expiring,
         bit_or(b.bit) FILTER (WHERE i.notified_status = 'expired') AS expired
    FROM "compliance_items" i
    JOIN (VALUES ('gas_safety', 1), ('eicr', 2), ('epc', 4), ('smoke_co_alarms', 8), ('hmo_licence', 16),
                 ('legionella_risk_assessment', 32), ('fire_risk_assessment', 64), ('deposit_protection', 128),
                 ('right_to_rent', 256), ('pat', 512)) AS b(type, bit) ON b.type = i.type
   WHERE i.notified_status IN ('expiring_soon', 'expired')
   GROUP BY i.property_id
)
UPDATE "property_compliance_rollups" r
   SET "expiring_types" = coalesce(n.expiring, 0), "expired_types" = coalesce(n.expired, 0)
  FROM noted n
 WHERE n.property_id = r.property_id;
ALTER TABLE "compliance_items" DROP COLUMN "notified_status";

-- One key, (tenant, property), instead of a primary key on the property and a unique index on both; no foreign
-- key to properties (checking it row by row was about a second of a first evaluation at 100,000 properties).
ALTER TABLE "property_compliance_rollups" DROP CONSTRAINT "property_compliance_rollups_tenant_id_property_id_fkey";
DROP INDEX "property_compliance_rollups_tenant_id_property_id_key";
ALTER TABLE "property_compliance_rollups" DROP CONSTRAINT "property_compliance_rollups_pkey",
  ADD CONSTRAINT "property_compliance_rollups_pkey" PRIMARY KEY ("tenant_id", "property_id");

-- What the foreign key's ON DELETE CASCADE did: a deleted property's rollup goes with it, in the same statement's
-- transaction (and the rollups' own trigger then takes its figures out of the summary).
CREATE FUNCTION property_compliance_rollups_on_property_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM property_compliance_rollups r USING old_rows o
   WHERE r.tenant_id = o.tenant_id AND r.property_id = o.id;
  RETURN NULL;
END $$;
CREATE TRIGGER property_compliance_rollups_on_delete AFTER DELETE ON properties
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT
  EXECUTE FUNCTION property_compliance_rollups_on_property_delete();

-- The summary counts the rollups and names the day the whole portfolio was last evaluated for (set by that
-- evaluation, rollup-statement.ts), instead of tracking the latest evaluated_on and how many rows carried it:
-- rows the daily evaluation finds unchanged keep their evaluated_on.
ALTER TABLE "portfolio_summaries" ADD COLUMN "rollups_full_day" DATE,
                                  ADD COLUMN "rollups_total" INTEGER NOT NULL DEFAULT 0;
UPDATE "portfolio_summaries" s
   SET "rollups_total" = (SELECT count(*) FROM "property_compliance_rollups" r WHERE r.tenant_id = s.tenant_id),
       "rollups_full_day" = CASE WHEN s.rollups_on_day >= s.properties_total THEN s.rollups_day END;
ALTER TABLE "portfolio_summaries" DROP COLUMN "rollups_day", DROP COLUMN "rollups_on_day";

CREATE OR REPLACE FUNCTION portfolio_summaries_on_rollups() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE 'UPDATE portfolio_summaries s
              SET valid = s.valid + g.valid,
                  expiring_soon = s.expiring_soon + g.expiring_soon,
                  expired = s.expired + g.expired,
                  missing = s.missing + g.missing,
                  rollups_total = s.rollups_total + g.n
             FROM (SELECT c.tenant_id, sum(c.sign) AS n, sum(c.sign * c.valid) AS valid,
                          sum(c.sign * c.expiring_soon) AS expiring_soon, sum(c.sign * c.expired) AS expired,
                          sum(c.sign * c.missing) AS missing
                     FROM (' || portfolio_changed_rows(TG_OP) || ') c
                    GROUP BY c.tenant_id) g
            WHERE s.tenant_id = g.tenant_id
              AND (g.n, g.valid, g.expiring_soon, g.expired, g.missing) <> (0, 0, 0, 0, 0)';
  RETURN NULL;
END $$;
