import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import type { Logger } from 'pino';
import { WEBHOOK_CHANNEL } from './record-events.ts';
import type { DeliveryWakeups } from './webhook-sender.ts';

// What wakes the sender right after a commit that wrote deliveries: LISTEN on the channel recordEvents notifies.

/**
 * PostgreSQL: a dedicated connection (a pooled one would be handed to other work and miss notifications). When it
 * drops, it reconnects after a second and wakes the sender once, for whatever was committed in between.
 */
export function postgresWakeups(url: string, logger: Logger): DeliveryWakeups {
  return async (onNotify) => {
    let stopped = false;
    let client: pg.Client | undefined;
    let retry: NodeJS.Timeout | undefined;

    const connect = async (): Promise<void> => {
      const c = new pg.Client({ connectionString: url });
      c.on('notification', (msg) => {
        if (msg.channel === WEBHOOK_CHANNEL) onNotify();
      });
      const lost = () => {
        if (stopped || client !== c) return;
        client = undefined;
        c.end().catch(() => {});
        logger.warn('the webhook notification connection was lost; reconnecting');
        retry = setTimeout(() => void reconnect(), 1_000);
      };
      c.on('error', lost);
      c.on('end', lost);
      client = c;
      await c.connect();
      await c.query(`LISTEN ${WEBHOOK_CHANNEL}`);
    };
    const reconnect = async () => {
      try {
        await connect();
        onNotify();
      } catch {
        client = undefined;
        if (!stopped) retry = setTimeout(() => void reconnect(), 1_000);
      }
    };

    await connect();
    return async () => {
      stopped = true;
      clearTimeout(retry);
      await client?.end().catch(() => {});
    };
  };
}

/**
 * The embedded database: PGlite's own listen. Its one backend session runs every client's statements (the app's
 * and the CLI's through the socket), and a session receives the notifications it sends itself, so a commit
 * anywhere wakes the sender here too.
 */
export function pgliteWakeups(pglite: PGlite): DeliveryWakeups {
  return async (onNotify) => {
    const unlisten = await pglite.listen(WEBHOOK_CHANNEL, () => onNotify());
    return async () => {
      await unlisten().catch(() => {});
    };
  };
}
