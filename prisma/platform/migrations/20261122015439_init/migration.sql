-- CreateTable
CREATE TABLE "tenants" (
    "id" SERIAL NOT NULL,
    "slug" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "tenants_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tenant_flags" (
    "tenant_id" INTEGER NOT NULL,
    "flag" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "tenant_flags_pkey" PRIMARY KEY ("tenant_id","flag")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "lookup_prefix" TEXT NOT NULL,
    "secret_hash" BYTEA NOT NULL,
    "scopes" TEXT[],
    "label" TEXT,
    "admin_email" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "properties" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "ref" TEXT NOT NULL,
    "line1" TEXT NOT NULL,
    "line2" TEXT,
    "town" TEXT NOT NULL,
    "county" TEXT,
    "postcode" TEXT NOT NULL,
    "uprn" TEXT,
    "property_type" TEXT NOT NULL,
    "bedrooms" INTEGER NOT NULL,
    "bathrooms" INTEGER NOT NULL,
    "tenure" TEXT NOT NULL,
    "furnishing" TEXT NOT NULL,
    "council_tax_band" TEXT,
    "local_authority" TEXT NOT NULL,
    "is_hmo" BOOLEAN NOT NULL DEFAULT false,
    "hmo_licence_type" TEXT,
    "max_occupants" INTEGER,
    "has_gas" BOOLEAN NOT NULL DEFAULT true,
    "epc_rating" TEXT,
    "epc_score" INTEGER,
    "epc_valid_until" DATE,
    "letting_status" TEXT NOT NULL,
    "management_type" TEXT NOT NULL,
    "units_total" INTEGER NOT NULL DEFAULT 1,
    "units_occupied" INTEGER NOT NULL DEFAULT 0,
    "arrears_pence" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "properties_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tenancies" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "property_id" INTEGER NOT NULL,
    "status" TEXT NOT NULL,
    "start_date" DATE NOT NULL,
    "end_date" DATE,
    "is_periodic" BOOLEAN NOT NULL DEFAULT false,
    "rent_pence" INTEGER NOT NULL,
    "rent_frequency" TEXT NOT NULL,
    "deposit_pence" INTEGER,
    "deposit_scheme" TEXT,
    "deposit_received_at" DATE,
    "deposit_protected_at" DATE,
    "prescribed_info_served_at" DATE,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "tenancies_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "compliance_items" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "property_id" INTEGER NOT NULL,
    "type" TEXT NOT NULL,
    "is_statutory" BOOLEAN NOT NULL DEFAULT true,
    "reference_number" TEXT,
    "issue_date" DATE,
    "expiry_date" DATE,
    "next_due_date" DATE,
    "outcome" TEXT,
    "rating" TEXT,
    "eicr_c1" INTEGER,
    "eicr_c2" INTEGER,
    "eicr_c3" INTEGER,
    "eicr_fi" INTEGER,
    "remedial_due_date" DATE,
    "exemption_valid_until" DATE,
    "contractor_name" TEXT,
    "contractor_company" TEXT,
    "contractor_scheme" TEXT,
    "contractor_registration_number" TEXT,
    "served_to_tenant_at" DATE,
    "notes" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "compliance_items_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "property_compliance_rollups" (
    "property_id" INTEGER NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "status" TEXT NOT NULL,
    "valid" INTEGER NOT NULL,
    "expiring_soon" INTEGER NOT NULL,
    "expired" INTEGER NOT NULL,
    "missing" INTEGER NOT NULL,
    "evaluated_on" DATE NOT NULL,

    CONSTRAINT "property_compliance_rollups_pkey" PRIMARY KEY ("property_id")
);

-- CreateTable
CREATE TABLE "deals" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "title" TEXT NOT NULL,
    "deal_type" TEXT NOT NULL,
    "stage" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'open',
    "value_pence" INTEGER,
    "property_id" INTEGER,
    "counterparty" TEXT,
    "expected_close_date" DATE,
    "next_action" TEXT,
    "next_action_due" DATE,
    "source" TEXT NOT NULL DEFAULT 'manual',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "deals_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "email_activity" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "thread_id" TEXT NOT NULL,
    "direction" TEXT NOT NULL,
    "from_address" TEXT NOT NULL,
    "to_addresses" TEXT[],
    "subject" TEXT NOT NULL,
    "snippet" VARCHAR(255) NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL,
    "has_attachments" BOOLEAN NOT NULL DEFAULT false,
    "category" TEXT NOT NULL,
    "requires_response" BOOLEAN NOT NULL DEFAULT false,
    "property_id" INTEGER,
    "deal_id" INTEGER,
    "mailbox" TEXT NOT NULL,

    CONSTRAINT "email_activity_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "mailboxes" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "address" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "mailboxes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "financial_logs" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "property_id" INTEGER NOT NULL,
    "date" DATE NOT NULL,
    "direction" TEXT NOT NULL,
    "category" TEXT NOT NULL,
    "net_pence" INTEGER NOT NULL,
    "vat_pence" INTEGER NOT NULL DEFAULT 0,
    "gross_pence" INTEGER NOT NULL,
    "payee_or_payer" TEXT,
    "reference" TEXT,
    "source_proposal_id" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "financial_logs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "proposals" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending_review',
    "payload" JSONB NOT NULL,
    "review_notes" TEXT,
    "api_key_id" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "decided_at" TIMESTAMPTZ(3),
    "decided_by" TEXT,
    "decision_note" TEXT,
    "record_type" TEXT,
    "record_id" INTEGER,

    CONSTRAINT "proposals_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "audit_entries" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "proposal_id" INTEGER NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "actor" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "from_status" TEXT,
    "to_status" TEXT NOT NULL,
    "note" TEXT,

    CONSTRAINT "audit_entries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "tenants_slug_key" ON "tenants"("slug");

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_lookup_prefix_key" ON "api_keys"("lookup_prefix");

-- CreateIndex
CREATE INDEX "api_keys_tenant_id_idx" ON "api_keys"("tenant_id");

-- CreateIndex
CREATE UNIQUE INDEX "properties_tenant_id_ref_key" ON "properties"("tenant_id", "ref");

-- CreateIndex
CREATE UNIQUE INDEX "properties_tenant_id_id_key" ON "properties"("tenant_id", "id");

-- CreateIndex
CREATE INDEX "tenancies_tenant_id_property_id_idx" ON "tenancies"("tenant_id", "property_id");

-- CreateIndex
CREATE INDEX "compliance_items_tenant_id_property_id_idx" ON "compliance_items"("tenant_id", "property_id");

-- CreateIndex
CREATE UNIQUE INDEX "compliance_items_property_id_type_key" ON "compliance_items"("property_id", "type");

-- CreateIndex
CREATE INDEX "property_compliance_rollups_tenant_id_evaluated_on_idx" ON "property_compliance_rollups"("tenant_id", "evaluated_on");

-- CreateIndex
CREATE UNIQUE INDEX "property_compliance_rollups_tenant_id_property_id_key" ON "property_compliance_rollups"("tenant_id", "property_id");

-- CreateIndex
CREATE INDEX "deals_tenant_id_status_id_idx" ON "deals"("tenant_id", "status", "id");

-- CreateIndex
CREATE INDEX "email_activity_tenant_id_received_at_idx" ON "email_activity"("tenant_id", "received_at");

-- CreateIndex
CREATE UNIQUE INDEX "mailboxes_tenant_id_address_key" ON "mailboxes"("tenant_id", "address");

-- CreateIndex
CREATE INDEX "financial_logs_tenant_id_property_id_date_idx" ON "financial_logs"("tenant_id", "property_id", "date");

-- CreateIndex
CREATE INDEX "proposals_tenant_id_status_id_idx" ON "proposals"("tenant_id", "status", "id");

-- CreateIndex
CREATE INDEX "audit_entries_tenant_id_proposal_id_idx" ON "audit_entries"("tenant_id", "proposal_id");

-- AddForeignKey
ALTER TABLE "tenant_flags" ADD CONSTRAINT "tenant_flags_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "properties" ADD CONSTRAINT "properties_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tenancies" ADD CONSTRAINT "tenancies_tenant_id_property_id_fkey" FOREIGN KEY ("tenant_id", "property_id") REFERENCES "properties"("tenant_id", "id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "compliance_items" ADD CONSTRAINT "compliance_items_tenant_id_property_id_fkey" FOREIGN KEY ("tenant_id", "property_id") REFERENCES "properties"("tenant_id", "id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "property_compliance_rollups" ADD CONSTRAINT "property_compliance_rollups_tenant_id_property_id_fkey" FOREIGN KEY ("tenant_id", "property_id") REFERENCES "properties"("tenant_id", "id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "deals" ADD CONSTRAINT "deals_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "deals" ADD CONSTRAINT "deals_property_id_fkey" FOREIGN KEY ("property_id") REFERENCES "properties"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "email_activity" ADD CONSTRAINT "email_activity_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "mailboxes" ADD CONSTRAINT "mailboxes_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "financial_logs" ADD CONSTRAINT "financial_logs_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "financial_logs" ADD CONSTRAINT "financial_logs_tenant_id_property_id_fkey" FOREIGN KEY ("tenant_id", "property_id") REFERENCES "properties"("tenant_id", "id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "proposals" ADD CONSTRAINT "proposals_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "audit_entries" ADD CONSTRAINT "audit_entries_proposal_id_fkey" FOREIGN KEY ("proposal_id") REFERENCES "proposals"("id") ON DELETE CASCADE ON UPDATE CASCADE;
