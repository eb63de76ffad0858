-- CreateTable
CREATE TABLE "knowledge_sync_states" (
    "worker_id" UUID NOT NULL,
    "tenant_slug" TEXT NOT NULL,
    "cursor" TEXT,
    "last_synced_at" TIMESTAMPTZ(3),
    "last_error" TEXT,
    "failures" INTEGER NOT NULL DEFAULT 0,
    "next_sync_at" TIMESTAMPTZ(3),
    "requested_at" TIMESTAMPTZ(3),
    "locked_until" TIMESTAMPTZ(3),
    "lock_token" UUID,

    CONSTRAINT "knowledge_sync_states_pkey" PRIMARY KEY ("worker_id")
);

-- CreateTable
CREATE TABLE "knowledge_documents" (
    "worker_id" UUID NOT NULL,
    "document_id" INTEGER NOT NULL,
    "property_id" INTEGER,
    "property_ref" TEXT,
    "kind" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "search" tsvector NOT NULL,

    CONSTRAINT "knowledge_documents_pkey" PRIMARY KEY ("worker_id","document_id")
);

-- CreateIndex
CREATE INDEX "knowledge_documents_worker_id_property_id_idx" ON "knowledge_documents"("worker_id", "property_id");

-- CreateIndex
CREATE INDEX "knowledge_documents_search_idx" ON "knowledge_documents" USING GIN ("search");

-- AddForeignKey
ALTER TABLE "knowledge_sync_states" ADD CONSTRAINT "knowledge_sync_states_worker_id_fkey" FOREIGN KEY ("worker_id") REFERENCES "platform_bindings"("worker_id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "knowledge_documents" ADD CONSTRAINT "knowledge_documents_worker_id_fkey" FOREIGN KEY ("worker_id") REFERENCES "knowledge_sync_states"("worker_id") ON DELETE CASCADE ON UPDATE CASCADE;
