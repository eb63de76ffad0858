import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { PlatformBridge } from '../clients/bridge/platform-bridge-client.ts';
import type { Config } from '../config.ts';
import type { SmokeTestClient } from '../features/binding/binding-service.ts';
import type { SummaryQueue } from '../features/daily-summary/summary-queue.ts';
import type { ProviderRegistry } from '../features/providers/provider-registry.ts';
import type { Db, StatementRunner } from '../lib/db.ts';
import type { GatewayMetrics } from '../lib/metrics/gateway-metrics.ts';

// What a gateway process has opened before anything is built from it: the database, Redis, the secret key, the
// providers and the bridge clients (open-runtime.ts opens them; tests open their own). composeGateway() builds
// every repository and service from these, once.
export interface AppDeps {
  config: Config;
  db: Db;
  /** the chat turn's hot statements: statementRunner(db, pool), prepared on PostgreSQL's pool */
  statements: StatementRunner;
  logger: Logger;
  providers: ProviderRegistry;
  /** null when Redis is unreachable: rate limits then live in this process's memory */
  redis: Redis | null;
  /** binding's smoke test of a candidate key (a client with a hard 5 s deadline) */
  smokeTest: SmokeTestClient;
  /** the bridge client the workers' tools read through */
  platform: PlatformBridge;
  /** 32 bytes: encrypts stored platform keys (GATEWAY_SECRET_KEY) */
  secretKey: Buffer;
  /**
   * this process's id in its lease (features/sessions/instance-lease.ts), stamped on the user turns it begins;
   * absent: its turns are closed by the turn time limit only, should the process die mid-turn
   */
  instanceId?: string;
  /** the daily summary's queue and job schedulers; null (or absent) while ASSISTANT_DAILY_SUMMARY_ENABLED is off */
  summaryQueue?: SummaryQueue | null;
  /**
   * this gateway's Prometheus metrics (lib/metrics), made with the runtime because the bridge clients report to
   * them too; absent: off
   */
  metrics?: GatewayMetrics;
}
