export const TENANT_FLAGS = [
  'assistant_external_bridge',
  'assistant_bridge_writes',
  'assistant_bridge_review_queue',
  'platform_event_webhooks',
] as const;
export type TenantFlagName = (typeof TENANT_FLAGS)[number];

export const TENANT_SLUG = /^[a-z0-9][a-z0-9-]{1,62}$/;
