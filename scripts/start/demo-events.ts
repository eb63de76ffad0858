import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { webhookAdmin } from '../../apps/platform-bridge/src/cli/webhook-admin.ts';
import type { Config } from '../../apps/platform-bridge/src/config.ts';
import { createTenantAdminService } from '../../apps/platform-bridge/src/features/tenants/tenant-admin-service.ts';
import type { Db } from '../../apps/platform-bridge/src/lib/db.ts';
import { DEMO_TENANT } from '../provision-demo.ts';

// The demo's signed events: the demo tenant's `platform_event_webhooks` flag on and one endpoint at the gateway's
// ingress, with the operator's own services (those `npm run platform -- webhooks add` uses), on the platform's
// database that `npm start` has open for its migrations. The endpoint's secret is shown once, so it is kept (mode
// 0600) in the data directory and handed to the gateway as PLATFORM_WEBHOOK_SECRET at every start; an endpoint
// registered before whose secret is lost (or that was disabled) is replaced.
export async function wireDemoEvents(opts: {
  db: Db;
  config: Config;
  dataDir: string;
  gatewayUrl: string;
}): Promise<string> {
  const url = `${opts.gatewayUrl}/api/platform/events`;
  const file = path.join(opts.dataDir, 'demo-webhook-secret');
  await createTenantAdminService({ db: opts.db }).setFlag(DEMO_TENANT, 'platform_event_webhooks', true);
  const webhooks = webhookAdmin(opts.config, opts.db);
  const existing = (await webhooks.listEndpoints(DEMO_TENANT)).find((e) => e.url === url);
  const kept = await readFile(file, 'utf8').then(
    (s) => s.trim(),
    () => null,
  );
  if (existing?.enabled && kept) return kept;
  if (existing) await webhooks.removeEndpoint(existing.id);
  const { secret } = await webhooks.addEndpoint(DEMO_TENANT, url);
  await mkdir(opts.dataDir, { recursive: true });
  await writeFile(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}
