import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

// Revocations told to every instance over Redis pub/sub (channel `<REDIS_PREFIX>access:revoked`, the device id as
// the message): each instance drops the device from its token cache and closes its open responses at once. The
// cache is trusted only while this subscription is up (`live()`): a lost connection may have lost messages, so
// the cache is emptied whenever the subscription goes down or comes back.

export const revocationChannel = (redisPrefix: string) => `${redisPrefix}access:revoked`;

export interface RevocationBus {
  /** true while revocations published by any instance reach this one */
  live(): boolean;
  publish(deviceId: string): Promise<void>;
}

export function createRevocationBus(deps: {
  redis: Redis | null;
  prefix: string;
  logger: Logger;
  onRevoked: (deviceId: string) => void;
  /** the subscription went down or came back: forget everything learnt without it */
  onResync: () => void;
}): RevocationBus {
  const { redis, logger } = deps;
  const channel = revocationChannel(deps.prefix);
  if (!redis) return { live: () => false, publish: async () => {} };

  let subscribed = false;
  const sub = redis.duplicate();
  sub.on('error', () => {});
  sub.on('message', (_channel: string, deviceId: string) => deps.onRevoked(deviceId));
  sub.on('close', () => {
    subscribed = false;
    deps.onResync();
  });
  // ioredis subscribes again by itself after a reconnect; 'ready' comes once it has
  sub.on('ready', () => {
    deps.onResync();
    subscribed = true;
  });
  sub
    .connect()
    .then(
      () => sub.subscribe(channel),
      (err: unknown) =>
        logger.warn({ err }, 'revocation subscription unavailable: tokens are checked on every request'),
    )
    .catch(() => {});
  // The app has no close hook of its own: the subscription ends with the app's Redis connection.
  redis.once('end', () => sub.disconnect());

  return {
    live: () => subscribed && sub.status === 'ready',
    async publish(deviceId) {
      try {
        await redis.publish(channel, deviceId);
      } catch (err) {
        logger.warn({ err }, 'could not publish a revocation: other instances learn of it by their poll');
      }
    },
  };
}
