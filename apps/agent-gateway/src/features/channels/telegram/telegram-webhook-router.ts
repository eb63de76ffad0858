import { gatewayRoutes } from '@pa/contracts';
import { Forbidden, NotFound, registerRoute, requireJson } from '@pa/http-kit';
import { Router } from 'express';
import type { Logger } from 'pino';
import type { ChannelConversation } from '../channel-conversation.ts';
import type { ChannelsRepository } from '../channels-repository.ts';
import { createKeyedQueue } from '../keyed-queue.ts';
import { matchesHash } from '../pairing.ts';
import { describeError } from '../safe-error.ts';
import { telegramText } from './telegram-update.ts';

// Telegram's webhook for a channel in webhook mode. The secret_token given to setWebhook comes back in
// X-Telegram-Bot-Api-Secret-Token and is compared with its stored hash in constant time. The answer is 200 as soon
// as the update is taken in: a chat turn can take longer than Telegram waits, and Telegram would deliver it again.
// Checks of one channel run one after another so that the order in which updates arrive is the order in which
// they are handed to the conversation (which keeps it per chat).
export function createTelegramWebhookRouter(deps: {
  channels: ChannelsRepository;
  conversation: ChannelConversation;
  logger: Logger;
}): Router {
  const { channels, conversation, logger } = deps;
  const router = Router();
  const intake = createKeyedQueue();

  registerRoute(
    router,
    gatewayRoutes.telegramWebhook,
    { before: [requireJson] },
    async ({ params: { channelId }, body }, req, res) => {
      await intake.run(channelId, async () => {
        const channel = await channels.findForWebhook(channelId, 'telegram');
        if (!channel || channel.mode !== 'webhook')
          throw new NotFound('channel-not-found', 'No Telegram channel in webhook mode here.');
        if (!matchesHash(req.get('x-telegram-bot-api-secret-token'), channel.webhookSecretHash))
          throw new Forbidden('webhook-secret-invalid', 'The webhook secret token is missing or wrong.');
        const text = telegramText(body);
        if (!text) return;
        // recorded before Telegram is answered: a failure here is a 5xx, and Telegram delivers the update again
        const taken = await conversation.takeIn({ channel, ...text });
        void taken?.done.catch((err: unknown) =>
          logger.error({ channel_id: channelId, error: describeError(err) }, 'Telegram update failed'),
        );
      });
      res.status(200).json({ ok: true });
    },
  );
  return router;
}
