-- AlterTable
ALTER TABLE "chat_sessions" ADD COLUMN     "device_id" UUID,
ADD COLUMN     "title" TEXT;

-- CreateIndex
CREATE INDEX "chat_sessions_channel_owner_device_id_last_active_at_idx" ON "chat_sessions"("channel", "owner", "device_id", "last_active_at");

-- AddForeignKey
ALTER TABLE "chat_sessions" ADD CONSTRAINT "chat_sessions_device_id_fkey" FOREIGN KEY ("device_id") REFERENCES "devices"("id") ON DELETE SET NULL ON UPDATE CASCADE;
