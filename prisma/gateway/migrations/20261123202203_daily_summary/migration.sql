-- CreateTable
CREATE TABLE "summary_configs" (
    "worker_id" UUID NOT NULL,
    "enabled" BOOLEAN NOT NULL,
    "delivery_channel" TEXT NOT NULL,
    "schedule" TEXT NOT NULL,
    "timezone" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "summary_configs_pkey" PRIMARY KEY ("worker_id")
);

-- CreateTable
CREATE TABLE "summary_runs" (
    "id" UUID NOT NULL,
    "worker_id" UUID NOT NULL,
    "trigger" TEXT NOT NULL,
    "scheduled_for" TIMESTAMPTZ(3) NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "delivery_channel" TEXT NOT NULL,
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),
    "error" TEXT,
    "briefing" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "summary_runs_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "summary_configs_enabled_idx" ON "summary_configs"("enabled");

-- CreateIndex
CREATE INDEX "summary_runs_worker_id_created_at_idx" ON "summary_runs"("worker_id", "created_at" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "summary_runs_worker_id_scheduled_for_key" ON "summary_runs"("worker_id", "scheduled_for");

-- AddForeignKey
ALTER TABLE "summary_configs" ADD CONSTRAINT "summary_configs_worker_id_fkey" FOREIGN KEY ("worker_id") REFERENCES "workers"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "summary_runs" ADD CONSTRAINT "summary_runs_worker_id_fkey" FOREIGN KEY ("worker_id") REFERENCES "workers"("id") ON DELETE CASCADE ON UPDATE CASCADE;
