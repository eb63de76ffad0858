-- DropIndex
DROP INDEX "chat_sessions_channel_external_id_key";

-- AlterTable
ALTER TABLE "chat_sessions" ADD COLUMN     "owner" TEXT NOT NULL DEFAULT '';

-- CreateIndex
CREATE UNIQUE INDEX "chat_sessions_channel_owner_external_id_key" ON "chat_sessions"("channel", "owner", "external_id");
