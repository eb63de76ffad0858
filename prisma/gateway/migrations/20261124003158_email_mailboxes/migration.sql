-- CreateTable
CREATE TABLE "mailboxes" (
    "id" UUID NOT NULL,
    "worker_id" UUID NOT NULL,
    "address" TEXT NOT NULL,
    "address_key" TEXT NOT NULL,
    "host" TEXT NOT NULL,
    "port" INTEGER NOT NULL,
    "secure" BOOLEAN NOT NULL,
    "username" TEXT NOT NULL,
    "password_ciphertext" BYTEA NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'active',
    "last_sync_at" TIMESTAMPTZ(3),
    "last_error" TEXT,
    "messages_stored" INTEGER NOT NULL DEFAULT 0,
    "uid_validity" BIGINT,
    "last_uid" BIGINT NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "mailboxes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "email_messages" (
    "id" UUID NOT NULL,
    "mailbox_id" UUID NOT NULL,
    "uid_validity" BIGINT NOT NULL,
    "uid" BIGINT NOT NULL,
    "message_id" TEXT,
    "from_address" TEXT NOT NULL,
    "from_name" TEXT,
    "to_addresses" TEXT[],
    "subject" TEXT NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL,
    "snippet" TEXT NOT NULL,
    "attachment_names" TEXT[],

    CONSTRAINT "email_messages_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "mailboxes_address_key_key" ON "mailboxes"("address_key");

-- CreateIndex
CREATE INDEX "mailboxes_worker_id_idx" ON "mailboxes"("worker_id");

-- CreateIndex
CREATE INDEX "email_messages_mailbox_id_received_at_idx" ON "email_messages"("mailbox_id", "received_at");

-- CreateIndex
CREATE UNIQUE INDEX "email_messages_mailbox_id_uid_validity_uid_key" ON "email_messages"("mailbox_id", "uid_validity", "uid");

-- AddForeignKey
ALTER TABLE "mailboxes" ADD CONSTRAINT "mailboxes_worker_id_fkey" FOREIGN KEY ("worker_id") REFERENCES "workers"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "email_messages" ADD CONSTRAINT "email_messages_mailbox_id_fkey" FOREIGN KEY ("mailbox_id") REFERENCES "mailboxes"("id") ON DELETE CASCADE ON UPDATE CASCADE;
