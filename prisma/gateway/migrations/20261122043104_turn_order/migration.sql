-- DropIndex
DROP INDEX "turns_session_id_created_at_idx";

-- AlterTable
ALTER TABLE "turns" ADD COLUMN     "seq" BIGSERIAL NOT NULL;

-- Turns stored before this migration are numbered in the order they were read until now.
WITH ordered AS (
  SELECT id, row_number() OVER (ORDER BY created_at, role DESC, id) AS n FROM "turns"
)
UPDATE "turns" t SET "seq" = o.n FROM ordered o WHERE o.id = t.id;
SELECT setval(pg_get_serial_sequence('"turns"', 'seq'), COALESCE((SELECT max("seq") FROM "turns"), 0) + 1, false);

-- CreateIndex
CREATE INDEX "turns_session_id_seq_idx" ON "turns"("session_id", "seq");
