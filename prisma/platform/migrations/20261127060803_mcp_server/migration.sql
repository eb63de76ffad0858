-- AlterTable
ALTER TABLE "audit_entries" ADD COLUMN     "channel" TEXT NOT NULL DEFAULT 'rest';

-- CreateTable
CREATE TABLE "mcp_tool_calls" (
    "id" BIGSERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "api_key_id" INTEGER NOT NULL,
    "tool" TEXT NOT NULL,
    "ids" JSONB NOT NULL,
    "status" TEXT NOT NULL,
    "duration_ms" INTEGER NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "mcp_tool_calls_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "mcp_tool_calls_tenant_id_at_idx" ON "mcp_tool_calls"("tenant_id", "at" DESC);

-- CreateIndex
CREATE INDEX "mcp_tool_calls_at_idx" ON "mcp_tool_calls"("at");

-- AddForeignKey
ALTER TABLE "mcp_tool_calls" ADD CONSTRAINT "mcp_tool_calls_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The knowledge search (GET /knowledge/search, the MCP tool search_knowledge): English full text over the documents
-- as they stand (tombstones left out), the title weighing more than the body. An expression index, which Prisma's
-- schema cannot state: the search's SQL writes the same expression (knowledge-search-repository.ts) so that the
-- planner uses it.
CREATE INDEX "knowledge_documents_search_idx" ON "knowledge_documents" USING GIN (
  (setweight(to_tsvector('english'::regconfig, "title"), 'A') || setweight(to_tsvector('english'::regconfig, "body"), 'B'))
) WHERE "deleted_at" IS NULL;
