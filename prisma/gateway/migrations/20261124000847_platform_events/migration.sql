-- CreateTable
CREATE TABLE "platform_event_receipts" (
    "webhook_id" TEXT NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "platform_event_receipts_pkey" PRIMARY KEY ("webhook_id")
);

-- CreateTable
CREATE TABLE "worker_events" (
    "id" UUID NOT NULL,
    "worker_id" UUID NOT NULL,
    "webhook_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "tenant_slug" TEXT NOT NULL,
    "message" TEXT NOT NULL,
    "data" JSONB NOT NULL,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "seq" BIGSERIAL NOT NULL,

    CONSTRAINT "worker_events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "platform_event_receipts_received_at_idx" ON "platform_event_receipts"("received_at");

-- CreateIndex
CREATE INDEX "worker_events_worker_id_seq_idx" ON "worker_events"("worker_id", "seq");

-- CreateIndex
CREATE UNIQUE INDEX "worker_events_worker_id_webhook_id_key" ON "worker_events"("worker_id", "webhook_id");

-- AddForeignKey
ALTER TABLE "worker_events" ADD CONSTRAINT "worker_events_worker_id_fkey" FOREIGN KEY ("worker_id") REFERENCES "workers"("id") ON DELETE CASCADE ON UPDATE CASCADE;
