// The server under test, run as a child process (`node --import tsx bench/bridge/server.ts`) so that autocannon's
// load generation does not share its event loop. BENCH_SERVER picks the bridge (createApp, exactly as
// main.ts builds it, with a PrismaPg pool) or the pg baseline; both listen on an ephemeral port and report it
// over IPC. The parent may ask for a CPU/memory/event-loop snapshot at any time.
import type { AddressInfo } from 'node:net';
import { createLogger } from '@pa/http-kit';
import { PrismaPg } from '@prisma/adapter-pg';
import type { Express } from 'express';
import pg from 'pg';
import { createApp } from '../../apps/platform-bridge/src/app.ts';
import { createPrismaClient, statementRunner } from '../../apps/platform-bridge/src/lib/db.ts';
import { createBaselineApp } from './baseline.ts';
import { type ProcessStats, processStats, shutdown } from '../lib/server.ts';

export type ServerKind = 'bridge' | 'baseline';

export type ToParent =
  { type: 'listening'; port: number } | { type: 'stats'; id: number; stats: ServerStats };
export type ToChild = { type: 'stats'; id: number } | { type: 'shutdown' };

export type ServerStats = ProcessStats;

function send(msg: ToParent): void {
  process.send?.(msg);
}

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
    // Production's default log level: one pino line per request (stdout is /dev/null here). The rate limit
    // is lifted so that it never answers 429 during the run; its bookkeeping still runs on every request.
    app = createApp({
      db,
      statements: statementRunner(db, pool),
      logger: createLogger('platform-bridge', process.env.BENCH_LOG_LEVEL ?? 'info'),
      rateLimitPerMin: 1_000_000_000,
    });
    close = async () => {
      await db.$disconnect();
      await pool.end();
    };
  } else {
    const pool = new pg.Pool({ connectionString: url, max: poolMax });
    pool.on('error', (err) => console.error('baseline pool:', err.message));
    app = createBaselineApp(pool);
    close = () => pool.end();
  }

  const server = app.listen(0, '127.0.0.1', () => {
    send({ type: 'listening', port: (server.address() as AddressInfo).port });
  });
  server.keepAliveTimeout = 60_000;

  process.on('message', (msg: ToChild) => {
    if (msg.type === 'stats') {
      send({ type: 'stats', id: msg.id, stats: processStats() });
    } else if (msg.type === 'shutdown') {
      shutdown(server, close);
    }
  });
  process.on('disconnect', () => process.exit(0));
}

main().catch((err: unknown) => {
  console.error('bench server failed:', err);
  process.exit(1);
});
