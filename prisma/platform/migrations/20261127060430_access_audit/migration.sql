-- CreateTable
CREATE TABLE "access_audit" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "actor" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "target" TEXT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "access_audit_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "access_audit_tenant_id_id_idx" ON "access_audit"("tenant_id", "id");

-- AddForeignKey
ALTER TABLE "access_audit" ADD CONSTRAINT "access_audit_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;
