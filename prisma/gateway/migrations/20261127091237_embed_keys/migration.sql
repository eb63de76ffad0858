-- Embed keys (docs/embedding.md): a worker's chat on other sites, bound to their origins. The key is stored as its
-- SHA-256 beside a lookup prefix; the visitor-token secret encrypted under GATEWAY_SECRET_KEY. A key that may propose
-- also requires a visitor token: the service refuses one that does not (no CHECK constraint: Prisma's schema engine
-- cannot diff one).
-- CreateTable
CREATE TABLE "embed_keys" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "worker_id" UUID NOT NULL,
    "label" TEXT NOT NULL,
    "key_prefix" TEXT NOT NULL,
    "key_hash" BYTEA NOT NULL,
    "origins" TEXT[],
    "allow_proposals" BOOLEAN NOT NULL DEFAULT false,
    "require_visitor_token" BOOLEAN NOT NULL DEFAULT false,
    "visitor_per_minute" INTEGER NOT NULL DEFAULT 10,
    "ip_per_minute" INTEGER NOT NULL DEFAULT 30,
    "workspace_per_day" INTEGER NOT NULL DEFAULT 2000,
    "visitor_secret_cipher" BYTEA NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "embed_keys_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "embed_keys_key_prefix_key" ON "embed_keys"("key_prefix");

-- CreateIndex
CREATE INDEX "embed_keys_worker_id_created_at_idx" ON "embed_keys"("worker_id", "created_at");

-- CreateIndex
CREATE INDEX "embed_keys_workspace_id_idx" ON "embed_keys"("workspace_id");

-- AddForeignKey
ALTER TABLE "embed_keys" ADD CONSTRAINT "embed_keys_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "embed_keys" ADD CONSTRAINT "embed_keys_worker_id_fkey" FOREIGN KEY ("worker_id") REFERENCES "workers"("id") ON DELETE CASCADE ON UPDATE CASCADE;
