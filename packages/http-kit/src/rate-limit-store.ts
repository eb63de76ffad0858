import { MemoryStore, type Options, type Store, type ClientRateLimitInfo } from 'express-rate-limit';
import type { Redis } from 'ioredis';
import { RedisStore, type RedisReply } from 'rate-limit-redis';

/**
 * An express-rate-limit `Store` that fails closed: it counts in Redis (rate-limit-redis, shared by every instance
 * on that Redis) while the ioredis client is ready, and in this process's memory (express-rate-limit's
 * MemoryStore) otherwise, and for any hit whose Redis call fails. When the connection is ready again, counting
 * goes back to Redis. So losing Redis never turns a limit off: each instance then enforces the budget on its own.
 * Every hit is also counted in memory while Redis counts it, so the fallback starts from what this process has
 * already let through in the window, not from zero (otherwise the minute Redis dies would allow a second budget).
 *
 * Errors are not logged here: the connection's state changes are (watchRedisConnection), once each.
 * `redis` null: memory only. One instance per rate limiter (express-rate-limit refuses a shared store).
 */
export class FailoverStore implements Store {
  /** keys counted in Redis are shared; express-rate-limit's double-count check then keys on the prefix */
  readonly localKeys = false;
  readonly prefix: string;
  private readonly memory = new MemoryStore();
  private readonly redisStore: RedisStore | undefined;
  private options: Options | undefined;

  constructor(
    private readonly redis: Redis | null,
    prefix: string,
  ) {
    this.prefix = prefix;
    if (!redis) return;
    this.redisStore = new RedisStore({
      sendCommand: (command: string, ...args: string[]) =>
        redis.call(command, ...args) as Promise<RedisReply>,
      prefix,
    });
    // (Re)load the scripts on each new connection: a restarted Redis has none, and a failed first load would
    // otherwise be remembered by the store.
    redis.on('ready', () => this.initRedis());
  }

  init(options: Options): void {
    this.options = options;
    this.memory.init(options);
    if (this.redisStore) this.redisStore.windowMs = options.windowMs;
    this.initRedis();
  }

  private initRedis(): void {
    if (!this.redisStore || !this.options || this.redis?.status !== 'ready') return;
    this.redisStore.init(this.options).catch(() => {
      // Redis went away meanwhile: hits count in memory until 'ready' loads the scripts again
    });
  }

  /** Redis while the connection is ready and the call succeeds; memory otherwise. */
  private async either<T>(redis: (s: RedisStore) => Promise<T>, memory: (s: MemoryStore) => Promise<T>) {
    if (this.redisStore && this.redis?.status === 'ready') {
      try {
        return await redis(this.redisStore);
      } catch {
        // the connection dropped under this call: counted in memory instead
      }
    }
    return memory(this.memory);
  }

  increment(key: string): Promise<ClientRateLimitInfo> {
    // the local count is kept warm whichever store answers (see above)
    const local = this.memory.increment(key);
    return this.either(
      (s) => s.increment(key),
      () => local,
    );
  }

  get(key: string): Promise<ClientRateLimitInfo | undefined> {
    return this.either(
      (s) => s.get(key),
      (s) => s.get(key),
    );
  }

  decrement(key: string): Promise<void> {
    const local = this.memory.decrement(key);
    return this.either(
      (s) => s.decrement(key),
      () => local,
    );
  }

  /** Forgets the key in both places, so that a later switch does not find an old count. */
  async resetKey(key: string): Promise<void> {
    await this.memory.resetKey(key);
    await this.either(
      (s) => s.resetKey(key),
      async () => {},
    );
  }

  shutdown(): void {
    this.memory.shutdown();
  }
}

/** The store for a rate limiter of either app: see FailoverStore. */
export function createRateLimitStore(opts: { redis: Redis | null; prefix: string }): Store {
  return new FailoverStore(opts.redis, opts.prefix);
}
