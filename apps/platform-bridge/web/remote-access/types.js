// The remote-access admin API's shapes as the page reads them (packages/contracts/src/remote-access.ts is the
// source of truth). Types only: nothing here runs.

/**
 * @typedef {{ key_id: number, label: string, scopes: string[], tenant: { slug: string, name: string } }} Whoami
 * @typedef {{
 *   id: number, label: string | null, scopes: string[], prefix: string,
 *   created_at: string, last_used_at: string | null, revoked_at: string | null,
 * }} RemoteKey
 * @typedef {{
 *   id: number, label: string, scopes: string[], prefix: string,
 *   created_at: string, last_used_at: string | null, revoked_at: string | null, current: boolean,
 * }} AdminKey
 * @typedef {'assistant_external_bridge' | 'assistant_bridge_writes' | 'assistant_bridge_review_queue'
 *   | 'platform_event_webhooks'} FlagName
 * @typedef {{ name: FlagName, enabled: boolean, description: string }} TenantFlag
 * @typedef {{
 *   id: number, url: string, enabled: boolean, disabled_at: string | null, disabled_reason: string | null,
 *   created_at: string, deliveries: { pending: number, succeeded: number, failed: number },
 * }} WebhookEndpoint
 * @typedef {'pending' | 'succeeded' | 'failed'} DeliveryStatus
 * @typedef {{
 *   id: number, webhook_id: string, event_type: string, status: DeliveryStatus, attempts: number,
 *   last_status_code: number | null, last_error: string | null, created_at: string,
 *   last_attempt_at: string | null, delivered_at: string | null, next_attempt_at: string | null,
 * }} WebhookDelivery
 * @typedef {{ id: number, actor: string, action: string, target: string, at: string }} AccessAuditEntry
 */

export {};
