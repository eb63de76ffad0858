export const TENANT_FLAGS = [
  'assistant_external_bridge',
  'assistant_bridge_writes',
  'assistant_bridge_review_queue',
  'platform_event_webhooks',
] as const;
export type TenantFlagName = (typeof TENANT_FLAGS)[number];

// The gateway's binding checks the same pattern, so it lives in the contracts.
export { TENANT_SLUG } from '@pa/contracts';
