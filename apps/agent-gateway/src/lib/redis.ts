import { Redis } from 'ioredis';

// Redis is optional for chatting: without it rate limits stay in memory. So connecting must answer quickly
// (no endless retry at start) and a dropped connection must not queue commands forever.
export async function connectRedis(url: string, timeoutMs = 1500): Promise<Redis | null> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    // The rate limiter's commands of one event-loop turn leave in one write: under load, one socket write
    // per batch of requests instead of one per request.
    enableAutoPipelining: true,
    retryStrategy: (times) => Math.min(times * 200, 2000),
  });
  redis.on('error', () => {
    // reported through command failures; ioredis would otherwise print every reconnect attempt
  });
  try {
    await redis.connect();
    await redis.ping();
    return redis;
  } catch {
    redis.disconnect();
    return null;
  }
}
