import type {
  AccessAuditEntry,
  AdminKey,
  RemoteKey,
  TenantFlag,
  WebhookDelivery,
  WebhookEndpoint,
  WhoamiResponse,
} from '@pa/contracts';
import type { AuthContext } from '../auth/authenticate.ts';
import { adminKeyView, remoteKeyView } from '../tenants/key-admin.ts';
import type { TenantAdminService } from '../tenants/tenant-admin-service.ts';
import type { WebhookAdminService } from '../webhooks/webhook-admin-service.ts';

/** The access audit's actor for a change made with an admin key: the admin it names. */
export function actorOf(auth: AuthContext): string {
  return auth.adminEmail ?? `admin key #${auth.keyId}`;
}

// The remote-access settings (issue 37) for one admin key: the tenant is always the key's, the actor its admin.
// Everything goes through the services the operator CLI calls (tenant-admin-service, webhook-admin-service), so
// that a key, a flag or an endpoint changes the same way and leaves the same audit entry from either side.
export function createRemoteAccessService(deps: {
  tenants: TenantAdminService;
  webhooks: WebhookAdminService;
}) {
  const { tenants, webhooks } = deps;

  return {
    whoami: (auth: AuthContext): WhoamiResponse => ({
      key_id: auth.keyId,
      label: actorOf(auth),
      scopes: auth.scopes,
      tenant: { slug: auth.tenantSlug, name: auth.tenantName },
    }),

    remoteKeys: async (auth: AuthContext): Promise<RemoteKey[]> =>
      (await tenants.keys.list(auth.tenantId, 'remote')).map(remoteKeyView),

    async createRemoteKey(auth: AuthContext, input: { label: string; scopes: string[] }) {
      const { row, secret } = await tenants.keys.issue(
        auth.tenantId,
        'remote',
        input.scopes,
        { label: input.label },
        actorOf(auth),
      );
      return { key: remoteKeyView(row), secret };
    },

    revokeRemoteKey: async (auth: AuthContext, id: number): Promise<RemoteKey> =>
      remoteKeyView(await tenants.keys.revoke(auth.tenantId, id, 'remote', actorOf(auth))),

    adminKeys: async (auth: AuthContext): Promise<AdminKey[]> =>
      (await tenants.keys.list(auth.tenantId, 'admin')).map((k) => adminKeyView(k, auth.keyId)),

    revokeAdminKey: async (auth: AuthContext, id: number, confirmLast: boolean): Promise<AdminKey> =>
      adminKeyView(
        await tenants.keys.revoke(auth.tenantId, id, 'admin', actorOf(auth), {
          guardLastAccessAdmin: !confirmLast,
        }),
        auth.keyId,
      ),

    flags: (auth: AuthContext): Promise<TenantFlag[]> => tenants.flags.list(auth.tenantId),

    setFlag: (auth: AuthContext, name: string, enabled: boolean): Promise<TenantFlag> =>
      tenants.flags.set(auth.tenantId, name, enabled, actorOf(auth)),

    endpoints: (auth: AuthContext): Promise<WebhookEndpoint[]> => webhooks.endpointsOf(auth.tenantId),

    addEndpoint: (auth: AuthContext, url: string) =>
      webhooks.addEndpointFor(auth.tenantId, auth.tenantSlug, url, actorOf(auth)),

    removeEndpoint: (auth: AuthContext, id: number): Promise<void> =>
      webhooks.removeEndpointOf(auth.tenantId, id, actorOf(auth)),

    deliveries: (auth: AuthContext, endpointId: number, limit: number): Promise<WebhookDelivery[]> =>
      webhooks.deliveriesOf(auth.tenantId, endpointId, limit),

    redeliver: (auth: AuthContext, id: number): Promise<WebhookDelivery> =>
      webhooks.redeliverOf(auth.tenantId, id, actorOf(auth)),

    audit: (auth: AuthContext, limit: number): Promise<AccessAuditEntry[]> =>
      tenants.audit(auth.tenantId, limit),
  };
}
export type RemoteAccessService = ReturnType<typeof createRemoteAccessService>;
