import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

// A /stop told to every instance over Redis pub/sub (channel `<REDIS_PREFIX>channels:stop`, the chat's key
// `<channel id>:<chat id>` as the message). Webhooks may bring a chat's /stop to another instance than the one
// running its turn (behind a load balancer); the instance running it stops it and sends its partial reply.
// Without Redis there is one process, and a /stop always finds its turn there.

export const stopChannel = (redisPrefix: string) => `${redisPrefix}channels:stop`;

export interface StopBus {
  /** Asks every instance to stop the chat's running turn; false when it could not be told (no Redis). */
  publish(chatKey: string): Promise<boolean>;
}

export function createStopBus(deps: {
  redis: Redis | null;
  prefix: string;
  logger: Logger;
  onStop: (chatKey: string) => void;
}): StopBus {
  const { redis, logger } = deps;
  if (!redis) return { publish: async () => false };
  const channel = stopChannel(deps.prefix);
  const sub = redis.duplicate();
  sub.on('error', () => {});
  sub.on('message', (_channel: string, chatKey: string) => deps.onStop(chatKey));
  sub
    .connect()
    .then(() => sub.subscribe(channel))
    .catch((err: unknown) =>
      logger.warn(
        { err },
        'stop subscription unavailable: a /stop reaches only the turns of its own instance',
      ),
    );
  // the subscription ends with the app's Redis connection
  redis.once('end', () => sub.disconnect());
  return {
    async publish(chatKey) {
      try {
        await redis.publish(channel, chatKey);
        return true;
      } catch (err) {
        logger.warn({ err }, 'could not publish a /stop to the other instances');
        return false;
      }
    },
  };
}
