import path from 'node:path';
import { type Config, REPO_ROOT } from '../config.ts';
import { createWebhookAdminService } from '../features/webhooks/webhook-admin-service.ts';
import { resolvePlatformSecretKey } from '../features/webhooks/webhook-secret.ts';
import { systemClock } from '../lib/clock.ts';
import type { Db } from '../lib/db.ts';

/** The webhook operator service as the CLI builds it: the app's secret key and address policy, from the config. */
export function webhookAdmin(config: Config, db: Db) {
  const { key } = resolvePlatformSecretKey(
    config.PLATFORM_SECRET_KEY,
    path.resolve(REPO_ROOT, config.PLATFORM_DATA_DIR),
  );
  return createWebhookAdminService({
    db,
    secretKey: key,
    policy: {
      allowHttpLoopback: config.WEBHOOK_ALLOW_HTTP_LOOPBACK,
      internalHosts: config.WEBHOOK_INTERNAL_HOSTS,
    },
    clock: systemClock,
  });
}
