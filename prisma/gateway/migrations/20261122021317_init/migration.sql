-- CreateTable
CREATE TABLE "chat_sessions" (
    "id" UUID NOT NULL,
    "channel" TEXT NOT NULL,
    "external_id" TEXT NOT NULL,
    "provider" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_active_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "chat_sessions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "turns" (
    "id" UUID NOT NULL,
    "session_id" UUID NOT NULL,
    "role" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "request_id" TEXT,
    "provider" TEXT,
    "tool_calls" JSONB,
    "error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "turns_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "chat_sessions_last_active_at_idx" ON "chat_sessions"("last_active_at");

-- CreateIndex
CREATE UNIQUE INDEX "chat_sessions_channel_external_id_key" ON "chat_sessions"("channel", "external_id");

-- CreateIndex
CREATE INDEX "turns_session_id_created_at_idx" ON "turns"("session_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "turns_session_id_request_id_role_key" ON "turns"("session_id", "request_id", "role");

-- AddForeignKey
ALTER TABLE "turns" ADD CONSTRAINT "turns_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "chat_sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;
