import { z } from 'zod';
import { ComplianceStatus, ComplianceType, Cursor } from './bridge.ts';
import { IsoDate, IsoDateTime, TenantSlug } from './params.ts';
import { ProposalKind, RecordRef } from './proposals.ts';
import { intField, optionalField, queryFields } from './query-fields.ts';
import { text } from './text.ts';

// Signed events from the platform to the agent platform. The platform writes one outbox row
// per event in the transaction of the change that causes it and delivers it per Standard Webhooks
// (`webhook-id`, `webhook-timestamp`, `webhook-signature`); the gateway verifies the raw body and stores it per
// worker bound to the tenant. snake_case like every platform payload.

export const PLATFORM_EVENT_TYPES = [
  'proposal.approved',
  'proposal.rejected',
  'proposal.expired',
  'compliance.status_changed',
  'knowledge.changed',
] as const;
export const PlatformEventType = z.enum(PLATFORM_EVENT_TYPES);

const ProposalEventData = z.strictObject({
  tenant_slug: TenantSlug,
  proposal_id: z.number().int().positive(),
  kind: ProposalKind,
  label: text()
    .max(200)
    .describe('what the proposal is about in words, e.g. the deal title or "Gas safety at MAN-003"'),
  status: z.enum(['approved', 'rejected', 'expired']),
  decided_at: IsoDateTime.nullable().describe('null for an expiry'),
  decision_note: text().max(2000).nullable(),
  record: RecordRef.nullable().describe('what the approval created or updated; null otherwise'),
});

const ComplianceEventData = z.strictObject({
  tenant_slug: TenantSlug,
  property_id: z.number().int().positive(),
  property_ref: text().max(50),
  address: text().max(300),
  item_id: z.number().int().positive(),
  compliance_type: ComplianceType,
  previous_status: ComplianceStatus.nullable().describe('null when the item had no earlier status on record'),
  status: z.enum(['expiring_soon', 'expired']),
  expiry_date: IsoDate.nullable(),
});

// Tells the gateway to sync the tenant's knowledge corpus now rather than at its next scheduled read; the
// documents themselves are read through GET /knowledge/changes, never carried by the event.
export const KNOWLEDGE_EVENT_PROPERTY_IDS_MAX = 100;
const KnowledgeEventData = z.strictObject({
  tenant_slug: TenantSlug,
  changed: z.number().int().min(1).describe('how many documents the change added, edited or removed'),
  property_ids: z
    .array(z.number().int().positive())
    .max(KNOWLEDGE_EVENT_PROPERTY_IDS_MAX)
    .describe('the properties whose documents changed (at most 100; agency-wide documents add none)'),
  at: IsoDateTime,
});

const envelope = <T extends string, D extends z.ZodType>(type: T, data: D) =>
  z.strictObject({ type: z.literal(type), timestamp: IsoDateTime, data });

export const ProposalApprovedEvent = envelope('proposal.approved', ProposalEventData);
export const ProposalRejectedEvent = envelope('proposal.rejected', ProposalEventData);
export const ProposalExpiredEvent = envelope('proposal.expired', ProposalEventData);
export const ComplianceStatusChangedEvent = envelope('compliance.status_changed', ComplianceEventData);
export const KnowledgeChangedEvent = envelope('knowledge.changed', KnowledgeEventData);

/** The JSON body of one signed delivery. */
export const PlatformEvent = z.discriminatedUnion('type', [
  ProposalApprovedEvent,
  ProposalRejectedEvent,
  ProposalExpiredEvent,
  ComplianceStatusChangedEvent,
  KnowledgeChangedEvent,
]);

/** What the ingress answers once an event is taken in (or was already, for a repeated `webhook-id`). */
export const PlatformEventReceipt = z.strictObject({
  received: z.literal(true),
  duplicate: z.boolean().describe('true when this `webhook-id` was already taken in (no second effect)'),
  workers: z.number().int().min(0).describe('how many workers bound to the tenant were told'),
});

// ---- the gateway's event feed ----------------------------------------------------------------------------

export const WorkerEvent = z.strictObject({
  id: z.uuid(),
  webhookId: text(),
  type: PlatformEventType,
  tenantSlug: TenantSlug,
  message: text().describe('the event in words, as the worker’s channels were told'),
  occurredAt: IsoDateTime.describe('the event’s own `timestamp`'),
  receivedAt: IsoDateTime,
  data: z.record(text(), z.unknown()).describe('the event’s `data` as the platform sent it'),
});

const workerEventsFields = queryFields({
  limit: intField({ min: 1, max: 100, default: 20, description: 'events per page' }),
  cursor: optionalField(Cursor, '`nextCursor` from the previous page; omit for the newest'),
});
export const WorkerEventsQuery = workerEventsFields.query;

export const WorkerEventsResponse = z.strictObject({
  events: z.array(WorkerEvent).describe('newest first'),
  nextCursor: text().nullable(),
});

export type PlatformEventType = z.infer<typeof PlatformEventType>;
export type PlatformEvent = z.infer<typeof PlatformEvent>;
export type PlatformEventReceipt = z.infer<typeof PlatformEventReceipt>;
export type WorkerEvent = z.infer<typeof WorkerEvent>;
export type WorkerEventsResponse = z.infer<typeof WorkerEventsResponse>;
