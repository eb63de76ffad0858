-- AlterTable
ALTER TABLE "mailboxes" ADD COLUMN     "failures" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "next_sync_at" TIMESTAMPTZ(3),
ADD COLUMN     "sync_locked_until" TIMESTAMPTZ(3);
