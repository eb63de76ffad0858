import { z } from 'zod';
import { IsoDateTime, PositiveId } from './params.ts';
import { intField, queryFields } from './query-fields.ts';
import { text } from './text.ts';

// The platform's remote-access settings (issue 37): a workspace admin (`padm_` key with `access:manage`) manages
// the tenant's remote API keys, admin keys, assistant flags and signed-event endpoints, and reads what changed.
// The page /settings/remote-access and the operator CLI call the same services; every change leaves an entry in
// the access audit. Secrets (a new key, a new endpoint's signing secret) appear in the creating answer only.

export const REMOTE_SCOPES = ['bridge:read', 'bridge:propose'] as const;
export const ADMIN_SCOPES = ['review:read', 'review:write', 'access:manage'] as const;
export const RemoteScope = z.enum(REMOTE_SCOPES, { error: `must be one of ${REMOTE_SCOPES.join(', ')}` });
export const AdminScope = z.enum(ADMIN_SCOPES, { error: `must be one of ${ADMIN_SCOPES.join(', ')}` });

export const TENANT_FLAGS = [
  'assistant_external_bridge',
  'assistant_bridge_writes',
  'assistant_bridge_review_queue',
  'platform_event_webhooks',
] as const;
export const TenantFlagName = z.enum(TENANT_FLAGS);

/** One sentence per flag, as the settings page shows it beside the switch. */
export const TENANT_FLAG_DESCRIPTIONS: Record<(typeof TENANT_FLAGS)[number], string> = {
  assistant_external_bridge:
    'Lets assistants holding one of your remote keys read your portfolio, properties, compliance, deals and email activity.',
  assistant_bridge_writes:
    'Lets assistants propose deals, compliance updates and financial logs; nothing is recorded until an admin approves it.',
  assistant_bridge_review_queue:
    'Turns on the review queue, where admins approve or reject what assistants propose.',
  platform_event_webhooks:
    'Sends signed events (decisions, compliance changes, knowledge changes) to the endpoints listed below.',
};

// ---- keys -------------------------------------------------------------------------------------------------

const keyFields = {
  id: z.number().int().positive(),
  scopes: z.array(text()),
  prefix: text().describe(
    'the visible start of the key, e.g. `plat_AbCd1234`; the rest is never shown again',
  ),
  created_at: IsoDateTime,
  last_used_at: IsoDateTime.nullable().describe(
    'recorded to the minute (at most one write a minute per key); null if never used',
  ),
  revoked_at: IsoDateTime.nullable(),
};

export const RemoteKey = z.strictObject({
  ...keyFields,
  label: text().nullable().describe('what the key is for, e.g. "Assistant for the lettings team"'),
});

export const AdminKey = z.strictObject({
  ...keyFields,
  label: text().describe('the admin the key names (an email address)'),
  current: z.boolean().describe('true for the key making this call'),
});

export const RemoteKeysResponse = z.strictObject({
  keys: z.array(RemoteKey).describe('oldest first, revoked ones included'),
});

export const AdminKeysResponse = z.strictObject({
  keys: z.array(AdminKey).describe('oldest first, revoked ones included'),
});

export const CreateRemoteKeyRequest = z.strictObject({
  label: text().trim().min(1, 'must say what the key is for').max(100, 'must be at most 100 characters'),
  scopes: z
    .array(RemoteScope)
    .min(1, 'must name at least one scope')
    .max(REMOTE_SCOPES.length)
    .describe('`bridge:read` to read; add `bridge:propose` to let the assistant propose changes'),
});

export const CreateRemoteKeyResponse = z.strictObject({
  key: RemoteKey,
  secret: text().describe('the whole key (`plat_…`): shown in this answer only, never again'),
});

export const RemoteKeyResponse = z.strictObject({ key: RemoteKey });
export const AdminKeyResponse = z.strictObject({ key: AdminKey });

export const KeyIdParams = z.strictObject({ id: PositiveId });

export const RevokeAdminKeyRequest = z.strictObject({
  confirm_last_access_admin: z
    .boolean()
    .optional()
    .describe(
      'must be true to revoke the last unrevoked key with `access:manage` (else 409 `last-access-admin`): afterwards only the operator CLI can issue one',
    ),
});

export const WhoamiResponse = z.strictObject({
  key_id: z.number().int().positive(),
  label: text().describe('the admin the key names'),
  scopes: z.array(text()),
  tenant: z.strictObject({ slug: text(), name: text() }),
});

// ---- flags ------------------------------------------------------------------------------------------------

export const TenantFlag = z.strictObject({
  name: TenantFlagName,
  enabled: z.boolean(),
  description: text(),
});

export const FlagsResponse = z.strictObject({
  flags: z.array(TenantFlag).describe('all four, in a fixed order'),
});

export const FlagParams = z.strictObject({ name: text() });

export const SetFlagRequest = z.strictObject({ enabled: z.boolean() });

export const FlagResponse = z.strictObject({ flag: TenantFlag });

// ---- signed events ----------------------------------------------------------------------------------------

export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;

export const WebhookEndpoint = z.strictObject({
  id: z.number().int().positive(),
  url: text(),
  enabled: z.boolean().describe('false once the platform disabled it (see `disabled_reason`)'),
  disabled_at: IsoDateTime.nullable(),
  disabled_reason: text().nullable(),
  created_at: IsoDateTime,
  deliveries: z
    .strictObject({
      pending: z.number().int().min(0),
      succeeded: z.number().int().min(0),
      failed: z.number().int().min(0),
    })
    .describe('how many deliveries it has in each status'),
});

export const WebhookEndpointsResponse = z.strictObject({
  endpoints: z.array(WebhookEndpoint).describe('oldest first'),
});

export const WEBHOOK_URL_MAX = 2000;
export const CreateWebhookEndpointRequest = z.strictObject({
  url: text()
    .trim()
    .min(1, 'must be a URL')
    .max(WEBHOOK_URL_MAX, `must be at most ${WEBHOOK_URL_MAX} characters`)
    .describe('https; its host must not resolve to a private, loopback or link-local address'),
});

export const CreateWebhookEndpointResponse = z.strictObject({
  endpoint: WebhookEndpoint,
  secret: text().describe(
    'the signing secret (`whsec_…`) to give the receiver: shown in this answer only, never again',
  ),
});

export const WebhookEndpointParams = z.strictObject({ id: PositiveId });
export const WebhookDeliveryParams = z.strictObject({ id: PositiveId });

const deliveriesFields = queryFields({
  limit: intField({ min: 1, max: 100, default: 20, description: 'deliveries, newest first' }),
});
export const WebhookDeliveriesQuery = deliveriesFields.query;

export const WebhookDelivery = z.strictObject({
  id: z.number().int().positive(),
  webhook_id: text().describe('the `webhook-id` header (`msg_…`), the same on every attempt'),
  event_type: text(),
  status: z.enum(WEBHOOK_DELIVERY_STATUSES),
  attempts: z.number().int().min(0),
  last_status_code: z.number().int().nullable(),
  last_error: text().nullable(),
  created_at: IsoDateTime,
  last_attempt_at: IsoDateTime.nullable(),
  delivered_at: IsoDateTime.nullable(),
  next_attempt_at: IsoDateTime.nullable().describe('while pending: when the next attempt is due'),
});

export const WebhookDeliveriesResponse = z.strictObject({
  deliveries: z.array(WebhookDelivery).describe('newest first'),
});

export const RedeliverResponse = z.strictObject({
  delivery: WebhookDelivery.describe('pending again, due now, with a fresh retry schedule'),
});

// ---- the access audit -------------------------------------------------------------------------------------

export const ACCESS_AUDIT_ACTIONS = [
  'remote-key.created',
  'remote-key.revoked',
  'admin-key.created',
  'admin-key.revoked',
  'flag.enabled',
  'flag.disabled',
  'webhook-endpoint.added',
  'webhook-endpoint.removed',
  'webhook-delivery.redelivered',
] as const;

export const ACCESS_AUDIT_CLI_ACTOR = 'operator CLI';

export const AccessAuditEntry = z.strictObject({
  id: z.number().int().positive(),
  actor: text().describe('the admin key’s label (the admin’s email), or `operator CLI`'),
  action: z.enum(ACCESS_AUDIT_ACTIONS),
  target: text().describe(
    'what changed in words, e.g. `remote key #12 "Lettings assistant" (plat_AbCd1234)`',
  ),
  at: IsoDateTime,
});

const auditFields = queryFields({
  limit: intField({ min: 1, max: 200, default: 50, description: 'entries, newest first' }),
});
export const AccessAuditQuery = auditFields.query;

export const AccessAuditResponse = z.strictObject({
  entries: z.array(AccessAuditEntry).describe('newest first'),
});

export type RemoteKey = z.infer<typeof RemoteKey>;
export type AdminKey = z.infer<typeof AdminKey>;
export type TenantFlag = z.infer<typeof TenantFlag>;
export type TenantFlagName = z.infer<typeof TenantFlagName>;
export type WebhookEndpoint = z.infer<typeof WebhookEndpoint>;
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;
export type AccessAuditEntry = z.infer<typeof AccessAuditEntry>;
export type AccessAuditAction = (typeof ACCESS_AUDIT_ACTIONS)[number];
export type WhoamiResponse = z.infer<typeof WhoamiResponse>;
