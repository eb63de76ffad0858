-- AlterTable
ALTER TABLE "compliance_items" ADD COLUMN     "notified_status" TEXT;
