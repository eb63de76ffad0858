-- AlterTable
ALTER TABLE "turns" ADD COLUMN     "instance_id" UUID;

-- CreateTable
CREATE TABLE "gateway_instances" (
    "id" UUID NOT NULL,
    "name" TEXT,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "heartbeat_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "gateway_instances_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "gateway_instances_name_idx" ON "gateway_instances"("name");

-- CreateIndex
CREATE INDEX "gateway_instances_heartbeat_at_idx" ON "gateway_instances"("heartbeat_at");

-- CreateIndex
CREATE INDEX "turns_instance_id_idx" ON "turns"("instance_id");
