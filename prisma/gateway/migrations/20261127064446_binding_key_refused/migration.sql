-- AlterTable
ALTER TABLE "platform_bindings" ADD COLUMN     "key_refused_at" TIMESTAMPTZ(3);
