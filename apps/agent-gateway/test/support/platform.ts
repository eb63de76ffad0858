import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestDatabase } from '@pa/db-tools/testing';
import { createLogger } from '@pa/http-kit';
import { PrismaPg } from '@prisma/adapter-pg';
import { createApp } from '../../../platform-bridge/src/app.ts';
import { MIGRATIONS_DIR } from '../../../platform-bridge/src/config.ts';
import { seedDemo, type SeedDemoResult } from '../../../platform-bridge/src/demo/demo-seed.ts';
import {
  createTenantAdminService,
  type TenantAdminService,
} from '../../../platform-bridge/src/features/tenants/tenant-admin-service.ts';
import type { Clock } from '../../../platform-bridge/src/lib/clock.ts';
import { createPrismaClient, type Db } from '../../../platform-bridge/src/lib/db.ts';

// The REAL platform-bridge app, in-process, for the gateway's tests: its own migrated PostgreSQL database,
// listening on 127.0.0.1 on a free port. The gateway talks to it over HTTP only, as in production.

export const PLATFORM_TEST_NOW = '2026-06-15T09:00:00Z';

export interface TestTenant {
  id: number;
  slug: string;
  name: string;
  key: string;
  keyId: number;
}

export interface PlatformForGateway {
  /** e.g. `http://127.0.0.1:43123` (no trailing slash). */
  baseUrl: string;
  db: Db;
  admin: TenantAdminService;
  clock: Clock & { set(iso: string): void };
  /** A tenant with the bridge flag on (unless `bridge: false`) and a remote key. */
  createTenant(opts?: { bridge?: boolean; scopes?: string[]; name?: string }): Promise<TestTenant>;
  /** Seeds the demo portfolio (SPEC §2.9) for `tenantSlug` (default demo-lettings) and issues it a key. */
  seedDemo(opts?: { tenantSlug?: string }): Promise<SeedDemoResult & { key: string; keyId: number }>;
  close(): Promise<void>;
}

export async function startPlatformForGateway(
  opts: { now?: string; rateLimitPerMin?: number } = {},
): Promise<PlatformForGateway> {
  const database = await createTestDatabase({ prefix: 'platform_for_gw', migrationsDir: MIGRATIONS_DIR });
  const db = createPrismaClient(new PrismaPg({ connectionString: database.url, max: 4 }));
  let now = new Date(opts.now ?? PLATFORM_TEST_NOW);
  const clock = { now: () => new Date(now), set: (iso: string) => void (now = new Date(iso)) };
  const admin = createTenantAdminService({ db });

  let server: Server | undefined;
  try {
    const app = createApp({
      db,
      logger: createLogger('platform-bridge', 'silent'),
      clock,
      rateLimitPerMin: opts.rateLimitPerMin ?? 10_000,
    });
    server = await new Promise<Server>((resolve, reject) => {
      const s = app.listen(0, '127.0.0.1', (err?: Error) => (err ? reject(err) : resolve(s)));
    });
  } catch (err) {
    await db.$disconnect();
    await database.drop();
    throw err;
  }
  const { port } = server.address() as AddressInfo;
  const listening = server;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    db,
    admin,
    clock,
    async createTenant(o = {}) {
      const slug = `gw-${randomBytes(5).toString('hex')}`;
      const tenant = await admin.createTenant(slug, o.name ?? `Tenant ${slug}`);
      if (o.bridge !== false) await admin.setFlag(slug, 'assistant_external_bridge', true);
      const key = await admin.createKey(slug, o.scopes ?? ['bridge:read']);
      return { id: tenant.id, slug, name: tenant.name, key: key.key, keyId: key.id };
    },
    async seedDemo(o = {}) {
      const seeded = await seedDemo({ db, clock }, o);
      const key = await admin.createKey(seeded.tenant.slug, ['bridge:read'], 'gateway tests');
      return { ...seeded, key: key.key, keyId: key.id };
    },
    async close() {
      listening.closeAllConnections();
      await new Promise<void>((resolve) => listening.close(() => resolve()));
      await db.$disconnect();
      await database.drop();
    },
  };
}
