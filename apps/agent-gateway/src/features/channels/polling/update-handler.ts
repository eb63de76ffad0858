import { setTimeout as sleep } from 'node:timers/promises';
import { type PeriodicTask, startPeriodicTask } from '@pa/http-kit';
import type { Update } from 'grammy/types';
import type { Logger } from 'pino';
import type { TelegramSecrets } from '../channel-secrets.ts';
import type { Channels } from '../channels.ts';
import { describeError } from '../safe-error.ts';
import { telegramText } from '../telegram/telegram-update.ts';
import type { PollingChannel } from './polling-channels.ts';

// What the pollers hand their updates to: the channels' conversation, over the same chat service, tools and
// memory as the web chat (the same channels the composition root built). It also answers the messages other
// processes took in and stopped before answering.
export function telegramUpdateHandler(deps: { channels: Channels; logger: Logger }) {
  const { channels, logger } = deps;
  const { conversation } = channels;
  return {
    tokenOf: (channel: PollingChannel) =>
      channels.secrets.open<TelegramSecrets & Record<string, string>>(channel.secretsCiphertext).botToken,

    /** Resolves once the update is recorded and queued for its chat (a turn may run on after). */
    async handle(channel: PollingChannel, update: Update): Promise<void> {
      const text = telegramText(update);
      // not a text message (a photo, a sticker): nothing to answer, and the offset moves past it
      if (!text) return;
      const taken = await conversation.takeIn({ channel: { ...channel, type: 'telegram' }, ...text });
      void taken?.done.catch((err: unknown) =>
        logger.error({ channel_id: channel.id, error: describeError(err) }, 'Telegram update failed'),
      );
    },

    /**
     * Answers, now and every `everyMs`, the messages of any channel (Telegram or WhatsApp, webhook or polling)
     * whose process stopped before answering them (see ChannelConversation.recoverOrphans), one look at a time.
     */
    startRecovery(everyMs: number): PeriodicTask {
      return startPeriodicTask({
        everyMs,
        run: async () => void (await conversation.recoverOrphans()),
        onError: (err) =>
          logger.warn({ error: describeError(err) }, 'could not look for unanswered channel messages'),
      });
    },

    /** Lets running turns finish for up to `graceMs`, then stops them (each keeps its partial reply). */
    async drain(graceMs: number): Promise<void> {
      const idle = conversation.idle();
      const grace = new AbortController();
      const finished = await Promise.race([
        idle.then(() => true),
        sleep(graceMs, false, { signal: grace.signal }).catch(() => false),
      ]);
      grace.abort();
      if (finished) return;
      logger.warn(
        { grace_ms: graceMs },
        'turns still running at shutdown: stopped, their partial replies kept',
      );
      conversation.abortAll();
      await idle;
    },
  };
}
