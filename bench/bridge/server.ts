// The server under test, run as a child process (`node --import tsx bench/bridge/server.ts`) so that autocannon's
// load generation does not share its event loop. BENCH_SERVER picks the bridge (createApp, exactly as
// main.ts builds it, with a PrismaPg pool) or the pg baselines (baseline.ts); both listen on an ephemeral port and report it
// over IPC (bench/lib/server.ts). The parent may ask for a CPU/memory/event-loop snapshot at any time, and for a
// V8 CPU profile (`profile-start`, `profile-stop`).
//
// BENCH_METRICS (bench/observability.ts): `off` or `on` gives the bridge the metrics serve.ts builds, with
// METRICS_ENABLED false or true and /metrics on this port behind BENCH_METRICS_TOKEN; unset, it is given none,
// as before. Tracing is started, or not, by the entry that imports this file (bench/observability/traced-entry.ts).
import { createLogger } from '@pa/http-kit';
import { PrismaPg } from '@prisma/adapter-pg';
import type { Express } from 'express';
import pg from 'pg';
import { createApp } from '../../apps/platform-bridge/src/app.ts';
import {
  createPrismaClient,
  statementRunner,
  statementTransaction,
} from '../../apps/platform-bridge/src/lib/db.ts';
import { createBridgeMetrics } from '../../apps/platform-bridge/src/lib/metrics/bridge-metrics.ts';
import { answerProfileQuestion } from '../observability/profiler.ts';
import { createBaselineApp } from './baseline.ts';
import { addBaselineProposalRoute } from './baseline-proposals.ts';
import { processStats, serve } from '../lib/server.ts';

export type ServerKind = 'bridge' | 'baseline';

// Answers `{ type: 'stats' }` with `{ type: 'stats', stats: ProcessStats }`.

async function main(): Promise<void> {
  const kind = process.env.BENCH_SERVER as ServerKind;
  const url = process.env.BENCH_DATABASE_URL;
  const poolMax = Number(process.env.BENCH_POOL_MAX ?? 10);
  if (!url || (kind !== 'bridge' && kind !== 'baseline')) {
    throw new Error('BENCH_SERVER (bridge|baseline) and BENCH_DATABASE_URL are required');
  }

  let app: Express;
  let close: () => Promise<void>;
  if (kind === 'bridge') {
    // As main.ts opens it: one pool for Prisma and the hot statements (prepared on it).
    const pool = new pg.Pool({ connectionString: url, max: poolMax });
    const db = createPrismaClient(new PrismaPg(pool));
    const metricsMode = process.env.BENCH_METRICS;
    // Production's default log level: one pino line per request (stdout is /dev/null here). The rate limit
    // is lifted so that it never answers 429 during the run; its bookkeeping still runs on every request.
    app = createApp({
      db,
      statements: statementRunner(db, pool),
      transactions: statementTransaction(db, pool),
      logger: createLogger('platform-bridge', process.env.BENCH_LOG_LEVEL ?? 'info'),
      rateLimitPerMin: 1_000_000_000,
      // the proposal benchmark submits thousands: the quota must not answer 429 (its count still runs)
      proposalPendingLimit: Number(process.env.BENCH_PROPOSAL_LIMIT ?? 1_000_000),
      ...(metricsMode
        ? {
            metrics: createBridgeMetrics({
              enabled: metricsMode === 'on',
              token: process.env.BENCH_METRICS_TOKEN,
              db,
              pool,
            }),
          }
        : {}),
    });
    close = async () => {
      await db.$disconnect();
      await pool.end();
    };
  } else {
    const pool = new pg.Pool({ connectionString: url, max: poolMax });
    pool.on('error', (err) => console.error('baseline pool:', err.message));
    // the same log line per request as the bridge, to the same place
    app = createBaselineApp(pool, createLogger('bench-baseline', process.env.BENCH_LOG_LEVEL ?? 'info'));
    addBaselineProposalRoute(app, pool);
    close = () => pool.end();
  }

  serve(app, {
    name: `bench ${kind} server`,
    close,
    trackAbandoned: true,
    answer: async (q) => {
      if (q.type === 'stats') return { type: 'stats', stats: processStats() };
      const profile = await answerProfileQuestion(q.type);
      if (!profile) throw new Error(`unknown question ${q.type}`);
      return profile;
    },
  });
}

main().catch((err: unknown) => {
  console.error('bench server failed:', err);
  process.exit(1);
});
