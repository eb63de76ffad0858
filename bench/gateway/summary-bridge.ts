// The platform bridge for the daily-summary benchmark (bench/gateway/daily-summary.ts), run as a child process
// (`node --import tsx bench/gateway/summary-bridge.ts`): createApp exactly as main.ts builds it (one pg pool for
// Prisma and the hot statements), behind one counting middleware, so that the benchmark learns how many bridge
// calls the briefings made from the bridge itself rather than from the caller's own count. Answers
// `{ type: 'stats' }` with the counts by route (ids replaced by `:id`) and its process figures, and
// `{ type: 'reset' }` by zeroing the counts.
import { createLogger } from '@pa/http-kit';
import { PrismaPg } from '@prisma/adapter-pg';
import express from 'express';
import pg from 'pg';
import { createApp } from '../../apps/platform-bridge/src/app.ts';
import {
  createPrismaClient,
  statementRunner,
  statementTransaction,
} from '../../apps/platform-bridge/src/lib/db.ts';
import { processStats, serve } from '../lib/server.ts';

export interface SummaryBridgeStats {
  /** requests by `METHOD /path` with numeric ids as `:id`, since start or the last reset */
  requests: Record<string, number>;
  /** answers by status class (`2xx`, `4xx`, `5xx`) */
  statuses: Record<string, number>;
}

async function main(): Promise<void> {
  const url = process.env.BENCH_DATABASE_URL;
  if (!url) throw new Error('BENCH_DATABASE_URL is required');
  const pool = new pg.Pool({ connectionString: url, max: Number(process.env.BENCH_POOL_MAX ?? 10) });
  const db = createPrismaClient(new PrismaPg(pool));
  // The per-key rate limit is lifted: 1,000 briefings at once are the load under test, not abuse (its
  // bookkeeping still runs on every request).
  const bridge = createApp({
    db,
    statements: statementRunner(db, pool),
    transactions: statementTransaction(db, pool),
    logger: createLogger('platform-bridge', process.env.BENCH_LOG_LEVEL ?? 'info'),
    rateLimitPerMin: 1_000_000_000,
  });

  let stats: SummaryBridgeStats = { requests: {}, statuses: {} };
  const app = express();
  app.use((req, res, next) => {
    const route = `${req.method} ${req.path.replace(/\/\d+(?=\/|$)/g, '/:id')}`;
    stats.requests[route] = (stats.requests[route] ?? 0) + 1;
    res.once('finish', () => {
      const kind = `${Math.floor(res.statusCode / 100)}xx`;
      stats.statuses[kind] = (stats.statuses[kind] ?? 0) + 1;
    });
    next();
  });
  app.use(bridge);

  serve(app, {
    name: 'bench summary bridge',
    close: async () => {
      await db.$disconnect();
      await pool.end();
    },
    trackAbandoned: true,
    answer: (q) => {
      if (q.type === 'reset') {
        stats = { requests: {}, statuses: {} };
        return { type: 'reset' };
      }
      if (q.type !== 'stats') throw new Error(`unknown question ${q.type}`);
      return { type: 'stats', stats: { ...stats, process: processStats() } };
    },
  });
}

main().catch((err: unknown) => {
  console.error('bench summary bridge failed:', err);
  process.exit(1);
});
