-- CreateTable
CREATE TABLE "knowledge_documents" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "key" TEXT NOT NULL,
    "property_id" INTEGER,
    "kind" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "deleted_at" TIMESTAMPTZ(3),
    "change_seq" BIGINT NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "knowledge_documents_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "knowledge_documents_tenant_id_property_id_idx" ON "knowledge_documents"("tenant_id", "property_id");

-- CreateIndex
CREATE UNIQUE INDEX "knowledge_documents_tenant_id_key_key" ON "knowledge_documents"("tenant_id", "key");

-- CreateIndex
CREATE UNIQUE INDEX "knowledge_documents_tenant_id_change_seq_key" ON "knowledge_documents"("tenant_id", "change_seq");

-- AddForeignKey
ALTER TABLE "knowledge_documents" ADD CONSTRAINT "knowledge_documents_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "knowledge_documents" ADD CONSTRAINT "knowledge_documents_tenant_id_property_id_fkey" FOREIGN KEY ("tenant_id", "property_id") REFERENCES "properties"("tenant_id", "id") ON DELETE NO ACTION ON UPDATE CASCADE;

-- Every write takes the tenant's knowledge lock (held to its commit) and then a number from the sequence, whatever
-- path wrote it: a tenant's writers therefore commit in the order of their numbers, and the changes read can hand
-- out numbers in order without ever passing one still to commit (knowledge-changes-repository.ts). Only the
-- tenant's corpus writers wait for each other; readers never do. (A filter on the snapshot's xmin would need no
-- lock, but any long transaction anywhere on the server would then hold every tenant's sync back.)
CREATE SEQUENCE "knowledge_documents_change_seq" AS bigint;

CREATE FUNCTION "knowledge_documents_stamp_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(35035, NEW."tenant_id");
  NEW."change_seq" := nextval('knowledge_documents_change_seq');
  RETURN NEW;
END;
$$;

CREATE TRIGGER "knowledge_documents_stamp_change"
  BEFORE INSERT OR UPDATE ON "knowledge_documents"
  FOR EACH ROW EXECUTE FUNCTION "knowledge_documents_stamp_change"();
