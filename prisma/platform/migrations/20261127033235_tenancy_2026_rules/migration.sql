-- AlterTable
ALTER TABLE "tenancies" ADD COLUMN     "fixed_term_end_date" DATE,
ADD COLUMN     "last_rent_increase_on" DATE,
ADD COLUMN     "notice_given_on" DATE,
ADD COLUMN     "possession_date" DATE;

-- Existing rows stay coherent (Renters' Rights Act 2025, in force 1 May 2026): the end date of a tenancy agreed
-- for a fixed term was that term's end, which is history now; a current tenancy without a notice no longer ends
-- then, so its end date is cleared. A tenancy under notice keeps its end date (the notice's), and an ended one the
-- day it ended. When the notices were given is not known for old rows: left null.
UPDATE "tenancies" SET "fixed_term_end_date" = "end_date" WHERE NOT "is_periodic" AND "end_date" IS NOT NULL;
UPDATE "tenancies" SET "end_date" = NULL
 WHERE "status" IN ('pending', 'active') AND NOT "is_periodic" AND "end_date" IS NOT NULL;
