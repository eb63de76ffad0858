import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

// At most one poller per channel across processes: Telegram hands each update to whichever getUpdates call comes
// first, so two pollers of one bot would split (and race on) its updates. A lease is a Redis key with an expiry,
// renewed while the poller runs; a process that dies stops renewing, its key expires, and another takes over.

export interface PollLease {
  /** aborted when the lease was taken by another process (ours expired): the poller must stop */
  readonly lost: AbortSignal;
  release(): Promise<void>;
}

export interface PollLocks {
  /** the lease of `channelId`, or null when another process holds it (or Redis cannot say) */
  acquire(channelId: string): Promise<PollLease | null>;
}

// Renew and release only what is still ours: the value is this lease's own token.
const RENEW = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end`;
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;

export function createRedisPollLocks(opts: {
  redis: Redis;
  /** REDIS_PREFIX */
  prefix: string;
  logger: Logger;
  ttlMs?: number;
}): PollLocks {
  const { redis, logger } = opts;
  const ttlMs = opts.ttlMs ?? 30_000;
  return {
    async acquire(channelId) {
      const key = `${opts.prefix}channels:poll-lock:${channelId}`;
      const token = randomUUID();
      const got = await redis.set(key, token, 'PX', ttlMs, 'NX').catch((err: unknown) => {
        logger.warn(
          { channel_id: channelId, error: err instanceof Error ? err.message : String(err) },
          'Redis did not answer: the channel is not polled until it does',
        );
        return null;
      });
      if (got !== 'OK') return null;
      const lost = new AbortController();
      // renewed three times per expiry, so one slow round trip does not lose it
      const timer = setInterval(() => {
        redis.eval(RENEW, 1, key, token, String(ttlMs)).then(
          (renewed) => {
            if (renewed !== 1) {
              clearInterval(timer);
              logger.warn({ channel_id: channelId }, 'the channel poll lock was taken by another process');
              lost.abort();
            }
          },
          // Redis away for a moment: nobody else can take the key either; keep polling and try again
          () => {},
        );
      }, ttlMs / 3);
      timer.unref();
      return {
        lost: lost.signal,
        async release() {
          clearInterval(timer);
          await redis.eval(RELEASE, 1, key, token).catch(() => {});
        },
      };
    },
  };
}

/** Without Redis: this process polls every channel, once each (run a single gateway or worker then). */
export function createLocalPollLocks(): PollLocks {
  const held = new Set<string>();
  return {
    acquire(channelId) {
      if (held.has(channelId)) return Promise.resolve(null);
      held.add(channelId);
      return Promise.resolve({
        lost: new AbortController().signal,
        release: () => {
          held.delete(channelId);
          return Promise.resolve();
        },
      });
    },
  };
}
