-- AlterTable
ALTER TABLE "proposals" ADD COLUMN     "property_id" INTEGER,
ADD COLUMN     "submitted_by" TEXT NOT NULL DEFAULT '';

-- CreateTable
CREATE TABLE "idempotency_keys" (
    "tenant_id" INTEGER NOT NULL,
    "endpoint" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "fingerprint" BYTEA NOT NULL,
    "response_status" INTEGER NOT NULL,
    "response_body" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "idempotency_keys_pkey" PRIMARY KEY ("tenant_id","endpoint","key")
);

-- CreateIndex
CREATE INDEX "idempotency_keys_created_at_idx" ON "idempotency_keys"("created_at");

-- CreateIndex
CREATE INDEX "proposals_status_expires_at_idx" ON "proposals"("status", "expires_at");

-- AddForeignKey
ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Proposals written before these columns: the property from the payload, the submitter from the first audit entry.
UPDATE "proposals" SET "property_id" = ("payload"->>'property_id')::integer
 WHERE jsonb_typeof("payload"->'property_id') = 'number';
UPDATE "proposals" p SET "submitted_by" = a."actor"
  FROM (SELECT DISTINCT ON ("proposal_id") "proposal_id", "actor" FROM "audit_entries" ORDER BY "proposal_id", "at", "id") a
 WHERE a."proposal_id" = p."id";
