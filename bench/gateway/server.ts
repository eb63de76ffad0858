// A server under test, run as a child process (`node --import tsx bench/gateway/server.ts`) so that the load
// generator does not share its event loop. BENCH_GW_KIND picks:
//
// - `gateway`: the agent gateway's createApp exactly as main.ts builds it — its database opened by openAppDatabase
//   (BENCH_GW_DATABASE_URL, pool BENCH_GW_POOL_MAX, default 10 as in production), the real Redis,
//   the providers from the configuration — with the configuration given as JSON in BENCH_GW_CONFIG (parsed
//   by the gateway's own loadConfig);
// - `baseline`: the bare Express app of baseline.ts with the same `local` provider.
//
// Both are served by serve() of bench/lib/server.ts (127.0.0.1 port 0, reported over IPC). The parent may ask
// for a CPU/memory snapshot (optionally after a forced GC; the parent starts children with --expose-gc) and for
// a V8 CPU profile.
//
// BENCH_GW_METRICS=1 (bench/observability.ts): the gateway is given the metrics open-runtime.ts builds from the
// configuration (METRICS_ENABLED, METRICS_TOKEN in BENCH_GW_CONFIG), its bridge clients reporting to them; unset,
// none, as before. Tracing is started, or not, by the entry that imports this file
// (bench/observability/traced-entry.ts).
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { Session } from 'node:inspector/promises';
import { performance } from 'node:perf_hooks';
import { openAppDatabase } from '@pa/db-tools';
import { createLogger } from '@pa/http-kit';
import type { Express } from 'express';
import type pg from 'pg';
import { createApp } from '../../apps/agent-gateway/src/app.ts';
import { composeGateway } from '../../apps/agent-gateway/src/compose/gateway.ts';
import { createPlatformClients } from '../../apps/agent-gateway/src/clients/platform-clients.ts';
import { loadConfig } from '../../apps/agent-gateway/src/config.ts';
import { createLocalProvider } from '../../apps/agent-gateway/src/features/providers/local/local-provider.ts';
import { providersFromConfig } from '../../apps/agent-gateway/src/features/providers/provider-registry.ts';
import { createPrismaClient, statementRunner } from '../../apps/agent-gateway/src/lib/db.ts';
import { createGatewayMetrics } from '../../apps/agent-gateway/src/lib/metrics/gateway-metrics.ts';
import { connectRedis } from '../../apps/agent-gateway/src/lib/redis.ts';
import { type ProcessStats, processStats, serve } from '../lib/server.ts';
import { createBaselineApp } from './baseline.ts';

export type ServerKind = 'gateway' | 'baseline';

export interface ServerStats extends ProcessStats {
  heapTotal: number;
  external: number;
  arrayBuffers: number;
  /** open sockets on the HTTP server */
  connections: number;
  /** responses finished since start */
  requests: number;
  /** gateway only: SQL statements sent to PostgreSQL since start, by first keyword, with their total time */
  queries: Record<string, { count: number; ms: number }>;
  /** gateway only: the distinct statement texts and how often each was sent */
  statements: Record<string, number>;
}

/** A V8 CPU profile (the inspector's Profiler.Profile), as much of it as the summary needs. */
export interface CpuProfile {
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
    hitCount?: number;
    children?: number[];
  }[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

export type ToParent =
  | { type: 'listening'; port: number; redis: 'connected' | 'unavailable' | 'none' }
  | { type: 'stats'; id: number; stats: ServerStats }
  | { type: 'profile'; id: number; profile: CpuProfile | null };
// The parent's questions: `{ type: 'stats', gc?: boolean }`, `{ type: 'profile-start' }`, `{ type: 'profile-stop' }`.

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

const queries: Record<string, { count: number; ms: number }> = {};
const statements = new Map<string, number>();

/**
 * Counts and times every statement a pooled client sends, by its first keyword (SELECT, INSERT, BEGIN...), and
 * keeps the distinct statement texts. pg-pool's `pool.query` (which the Prisma adapter uses) calls
 * `client.query(config, values, callback)`; a promise is returned only without a callback.
 */
function countQueries(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as { query: unknown }).query = (...args: unknown[]) => {
    const first = args[0];
    const text = typeof first === 'string' ? first : ((first as { text?: string } | undefined)?.text ?? '');
    const kind = text.trimStart().slice(0, 8).split(/\s/, 1)[0]!.toUpperCase() || '?';
    const entry = (queries[kind] ??= { count: 0, ms: 0 });
    entry.count++;
    if (statements.size < 50 || statements.has(text)) statements.set(text, (statements.get(text) ?? 0) + 1);
    const started = performance.now();
    const done = () => {
      entry.ms += performance.now() - started;
    };
    const last = args[args.length - 1];
    if (typeof last === 'function') {
      args[args.length - 1] = (...cbArgs: unknown[]) => {
        done();
        return (last as (...a: unknown[]) => unknown)(...cbArgs);
      };
      return query(...args);
    }
    const result = query(...args);
    if (result instanceof Promise) return result.finally(done);
    return result;
  };
}

async function main(): Promise<void> {
  const kind = process.env.BENCH_GW_KIND as ServerKind;
  let app: Express;
  let close: () => Promise<void> = async () => {};
  let redisState: 'connected' | 'unavailable' | 'none' = 'none';

  if (kind === 'gateway') {
    const url = process.env.BENCH_GW_DATABASE_URL;
    if (!url) throw new Error('BENCH_GW_DATABASE_URL is required');
    const config = loadConfig(JSON.parse(process.env.BENCH_GW_CONFIG ?? '{}') as Record<string, string>);
    const redis = await connectRedis(config.REDIS_URL);
    redisState = redis ? 'connected' : 'unavailable';
    // Opened as main.ts opens it; a hook on its pool counts and times the statements.
    const opened = await openAppDatabase({
      name: 'gateway',
      url,
      poolMax: Number(process.env.BENCH_GW_POOL_MAX ?? 10),
    });
    opened.pool!.on('connect', (client) => countQueries(client));
    const db = createPrismaClient(opened.adapter);
    // as open-runtime.ts makes them (no summary queue here)
    const metrics =
      process.env.BENCH_GW_METRICS === '1'
        ? createGatewayMetrics(config, { db, pool: opened.pool })
        : undefined;
    app = createApp(
      composeGateway({
        config,
        db,
        statements: statementRunner(db, opened.pool),
        logger: createLogger('agent-gateway', config.LOG_LEVEL),
        providers: providersFromConfig(config),
        redis,
        // As main.ts builds them; the chat routes use neither while AI_WORKERS_ENABLED is off (the default).
        ...createPlatformClients(config, metrics?.bridgeCall),
        secretKey: randomBytes(32),
        ...(metrics ? { metrics } : {}),
      }),
    );
    close = async () => {
      redis?.disconnect();
      await db.$disconnect();
      await opened.close().catch(() => {});
    };
  } else if (kind === 'baseline') {
    app = createBaselineApp(createLocalProvider());
  } else {
    throw new Error('BENCH_GW_KIND must be gateway or baseline');
  }

  let profiler: Session | undefined;
  const server = serve(app, {
    name: `bench ${kind} server`,
    close,
    listening: { redis: redisState },
    answer: async (q): Promise<DistributiveOmit<ToParent, 'id'>> => {
      if (q.type === 'stats') {
        const gc = (globalThis as { gc?: () => void }).gc;
        if (q.gc && gc) {
          gc();
          gc();
        }
        const mem = process.memoryUsage();
        return {
          type: 'stats',
          stats: {
            ...processStats(mem),
            heapTotal: mem.heapTotal,
            external: mem.external,
            arrayBuffers: mem.arrayBuffers,
            connections: await connections(),
            requests,
            queries: structuredClone(queries),
            statements: Object.fromEntries(statements),
          },
        };
      } else if (q.type === 'profile-start') {
        profiler = new Session();
        profiler.connect();
        await profiler.post('Profiler.enable');
        await profiler.post('Profiler.setSamplingInterval', { interval: 200 });
        await profiler.post('Profiler.start');
        return { type: 'profile', profile: null };
      } else if (q.type === 'profile-stop') {
        const result = profiler ? await profiler.post('Profiler.stop') : undefined;
        profiler?.disconnect();
        profiler = undefined;
        return { type: 'profile', profile: (result?.profile as CpuProfile | undefined) ?? null };
      }
      throw new Error(`unknown question ${q.type}`);
    },
  });
  let requests = 0;
  server.on('request', (_req, res: ServerResponse) => {
    res.once('close', () => requests++);
  });
  // 1,000 streams may be opened at once
  server.maxConnections = 100_000;
  const connections = () =>
    new Promise<number>((resolve) => server.getConnections((_err, n) => resolve(n ?? -1)));
}

main().catch((err: unknown) => {
  console.error('bench gateway server failed:', err);
  process.exit(1);
});
