-- AlterTable
ALTER TABLE "channel_updates" ADD COLUMN     "attempts" INTEGER NOT NULL DEFAULT 1,
ADD COLUMN     "chat_id" TEXT,
ADD COLUMN     "chat_title" TEXT,
ADD COLUMN     "claimed_until" TIMESTAMPTZ(3),
ADD COLUMN     "handled_at" TIMESTAMPTZ(3),
ADD COLUMN     "text" TEXT;

-- CreateIndex
CREATE INDEX "channel_updates_claimed_until_idx" ON "channel_updates"("claimed_until");

-- Updates taken in before this migration carry no message to answer again: they count as handled.
UPDATE "channel_updates" SET "handled_at" = "received_at";
