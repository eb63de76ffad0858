// The flags and their one-sentence descriptions live in the contracts (remote-access.ts), where the admin API
// lists them; the gateway's binding checks the same slug pattern.
export { TENANT_FLAG_DESCRIPTIONS, TENANT_FLAGS, TENANT_SLUG } from '@pa/contracts';
export type { TenantFlagName } from '@pa/contracts';
