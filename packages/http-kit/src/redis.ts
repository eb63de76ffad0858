import { Redis } from 'ioredis';
import type { Logger } from 'pino';

/** The URL without its password, for logs. */
export const redactRedisUrl = (url: string) => url.replace(/\/\/[^@/]*@/, '//***@');

/**
 * Logs the connection's state changes, once each, as structured lines: "lost" when a ready connection fails
 * (ioredis then retries every ~2 s and reports an error per attempt: those are not logged again), "restored"
 * when it is ready again. Never a stack trace.
 */
export function watchRedisConnection(redis: Redis, logger: Logger, url: string): void {
  let state: 'connecting' | 'up' | 'down' = redis.status === 'ready' ? 'up' : 'connecting';
  const redis_url = redactRedisUrl(url);
  const lost = (error: string | undefined, code: string | undefined) => {
    if (state !== 'up') return;
    state = 'down';
    logger.warn(
      { redis: redis_url, error, code },
      'Redis connection lost: rate limits are kept in this process until it is back; reconnecting',
    );
  };
  redis.on('error', (err: Error & { code?: string }) => lost(err.message, err.code));
  redis.on('close', () => lost('connection closed', undefined));
  redis.on('ready', () => {
    const was = state;
    state = 'up';
    if (was === 'down') logger.info({ redis: redis_url }, 'Redis connection restored');
  });
}

// Redis is optional for both apps: without it rate limits stay in memory. So connecting must answer quickly
// (no endless retry at start) and a dropped connection must not queue commands forever.
export async function connectRedis(
  url: string,
  opts: { logger?: Logger; timeoutMs?: number } = {},
): Promise<Redis | null> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: opts.timeoutMs ?? 1500,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    // The rate limiter's commands of one event-loop turn leave in one write: under load, one socket write
    // per batch of requests instead of one per request.
    enableAutoPipelining: true,
    retryStrategy: (times) => Math.min(times * 200, 2000),
  });
  // Without an 'error' listener ioredis prints every failed reconnect attempt with its stack to stderr.
  redis.on('error', () => {});
  try {
    await redis.connect();
    await redis.ping();
  } catch {
    redis.disconnect();
    return null;
  }
  if (opts.logger) watchRedisConnection(redis, opts.logger, url);
  return redis;
}
