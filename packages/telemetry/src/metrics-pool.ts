import { Gauge, type Registry } from 'prom-client';

// The database pool's use, read when scraped: the connections in use, idle, and the queries waiting for one. The
// apps' Prisma adapter and their prepared statements share one pg Pool (db-tools' openAppDatabase), so this is all
// of an app's database traffic. The embedded database has no pool: the family is then empty.

/** What the gauge reads of a pg Pool (its own counters; no query is sent). */
export interface PoolCounts {
  readonly totalCount: number;
  readonly idleCount: number;
  readonly waitingCount: number;
}

export function poolMetrics(registry: Registry, pool: PoolCounts | null | undefined): void {
  new Gauge({
    name: 'pa_db_pool_connections',
    help: 'Database pool connections by state: active (lent out), idle, and waiting (queries queued for one).',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      if (!pool) return;
      this.set({ state: 'active' }, pool.totalCount - pool.idleCount);
      this.set({ state: 'idle' }, pool.idleCount);
      this.set({ state: 'waiting' }, pool.waitingCount);
    },
  });
}
