-- CreateTable
CREATE TABLE "workspaces" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "workspaces_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "workers" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "template" TEXT,
    "skill_packs" TEXT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "workers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "platform_bindings" (
    "worker_id" UUID NOT NULL,
    "tenant_slug" TEXT NOT NULL,
    "key_ciphertext" BYTEA NOT NULL,
    "key_preview" TEXT NOT NULL,
    "properties_total" INTEGER NOT NULL,
    "bound_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "platform_bindings_pkey" PRIMARY KEY ("worker_id")
);

-- CreateIndex
CREATE INDEX "workers_workspace_id_created_at_idx" ON "workers"("workspace_id", "created_at");

-- AddForeignKey
ALTER TABLE "workers" ADD CONSTRAINT "workers_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_bindings" ADD CONSTRAINT "platform_bindings_worker_id_fkey" FOREIGN KEY ("worker_id") REFERENCES "workers"("id") ON DELETE CASCADE ON UPDATE CASCADE;
