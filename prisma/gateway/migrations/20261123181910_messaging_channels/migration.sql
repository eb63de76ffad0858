-- CreateTable
CREATE TABLE "channels" (
    "id" UUID NOT NULL,
    "worker_id" UUID NOT NULL,
    "type" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending_pairing',
    "external_id" TEXT NOT NULL,
    "bot_username" TEXT,
    "secrets_ciphertext" BYTEA NOT NULL,
    "webhook_secret_hash" BYTEA,
    "pairing_code_hash" BYTEA,
    "pairing_expires_at" TIMESTAMPTZ(3),
    "chat_id" TEXT,
    "chat_title" TEXT,
    "connected_at" TIMESTAMPTZ(3),
    "last_error" TEXT,
    "poll_offset" BIGINT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "channels_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "channel_updates" (
    "channel_id" UUID NOT NULL,
    "update_key" TEXT NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "channel_updates_pkey" PRIMARY KEY ("channel_id","update_key")
);

-- CreateIndex
CREATE INDEX "channels_worker_id_idx" ON "channels"("worker_id");

-- CreateIndex
CREATE UNIQUE INDEX "channels_type_external_id_key" ON "channels"("type", "external_id");

-- CreateIndex
CREATE INDEX "channel_updates_received_at_idx" ON "channel_updates"("received_at");

-- AddForeignKey
ALTER TABLE "channels" ADD CONSTRAINT "channels_worker_id_fkey" FOREIGN KEY ("worker_id") REFERENCES "workers"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "channel_updates" ADD CONSTRAINT "channel_updates_channel_id_fkey" FOREIGN KEY ("channel_id") REFERENCES "channels"("id") ON DELETE CASCADE ON UPDATE CASCADE;
