import { setTimeout as sleep } from 'node:timers/promises';
import type { ConnectChannelRequest } from '@pa/contracts';
import { BadGateway, Unprocessable } from '@pa/http-kit';
import { Api, GrammyError, HttpError } from 'grammy';
import type { Logger } from 'pino';
import type { ChannelConnector } from '../channel-connector.ts';
import type { ChannelSecrets, TelegramSecrets } from '../channel-secrets.ts';
import type { ChannelRow } from '../channels-repository.ts';
import { newWebhookSecret } from '../pairing.ts';
import { describeError } from '../safe-error.ts';
import { formatForTelegram } from './telegram-format.ts';

/** Where Telegram posts a webhook-mode channel's updates. */
export function telegramWebhookUrl(publicBaseUrl: string, channelId: string): string {
  return `${publicBaseUrl}/api/channels/telegram/${channelId}/webhook`;
}

/** Calls other than long polls give up after this long (grammY's own default is 500 s). */
const CALL_TIMEOUT_SECONDS = 15;
/** A 429 asks us to wait `retry_after` seconds; waits longer than this are not worth holding a reply for. */
const MAX_RETRY_AFTER_SECONDS = 60;
const MAX_SEND_ATTEMPTS = 5;

const tokenRejected = () =>
  new Unprocessable(
    'channel-token-rejected',
    'Telegram refused the bot token. Copy it again from @BotFather (/mybots → API Token).',
  );
const unreachable = () =>
  new BadGateway('channel-unreachable', 'The Telegram Bot API could not be reached or failed; try again.', {
    title: 'Telegram unreachable',
  });

/** A Bot API failure while connecting, as the error the API answers with. */
function connectFailure(err: unknown, method: string): Error {
  if (err instanceof GrammyError) {
    if (err.error_code === 401 || err.error_code === 404) return tokenRejected();
    if (err.error_code === 400 && method === 'setWebhook') {
      return new Unprocessable(
        'public-url-required',
        `Telegram refused the webhook address (${err.description}). PUBLIC_BASE_URL must be an https:// address Telegram can reach; or connect in polling mode.`,
      );
    }
  }
  return unreachable();
}

// A Telegram bot through grammY's Bot API client, pointed at TELEGRAM_API_BASE_URL. The token is handed to grammY
// and to nothing else: failures are turned into our error kinds or logged through describeError, which keeps the
// URL (and so the token) out.
export function createTelegramConnector(deps: {
  apiRoot: string;
  publicBaseUrl: string | undefined;
  logger: Logger;
}): ChannelConnector & { api(secrets: ChannelSecrets): Api } {
  const { apiRoot, publicBaseUrl, logger } = deps;
  const api = (secrets: ChannelSecrets) =>
    new Api((secrets as unknown as TelegramSecrets).botToken, {
      apiRoot,
      timeoutSeconds: CALL_TIMEOUT_SECONDS,
    });

  async function connecting<T>(method: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      logger.info({ method, error: describeError(err) }, 'Telegram refused or failed while connecting');
      throw connectFailure(err, method);
    }
  }

  /** sendMessage, honouring 429 retry_after, and resent as plain text if Telegram cannot parse the HTML. */
  async function sendOne(bot: Api, chatId: string, html: string, plain: string): Promise<void> {
    let asHtml = true;
    for (let attempt = 1; ; attempt++) {
      try {
        await bot.sendMessage(
          chatId,
          asHtml ? html : plain,
          asHtml
            ? { parse_mode: 'HTML', link_preview_options: { is_disabled: true } }
            : { link_preview_options: { is_disabled: true } },
        );
        return;
      } catch (err) {
        if (attempt >= MAX_SEND_ATTEMPTS) throw err;
        if (err instanceof GrammyError && err.error_code === 429) {
          const wait = Math.min(err.parameters.retry_after ?? 1, MAX_RETRY_AFTER_SECONDS);
          logger.info(
            { chat_id: chatId, retry_after: wait },
            'Telegram rate limit: waiting before resending',
          );
          await sleep(wait * 1000);
          continue;
        }
        if (
          asHtml &&
          err instanceof GrammyError &&
          err.error_code === 400 &&
          /parse entities/i.test(err.description)
        ) {
          logger.warn(
            { chat_id: chatId, error: describeError(err) },
            'Telegram could not parse a reply; resending as plain text',
          );
          asHtml = false;
          continue;
        }
        if (err instanceof HttpError || (err instanceof GrammyError && err.error_code >= 500)) {
          await sleep(500 * attempt);
          continue;
        }
        throw err;
      }
    }
  }

  return {
    api,

    async connect(request: ConnectChannelRequest) {
      if (request.type !== 'telegram') throw new Error('not a Telegram request');
      if (request.mode === 'webhook' && !publicBaseUrl) {
        throw new Unprocessable(
          'public-url-required',
          'Webhook mode needs PUBLIC_BASE_URL: the https:// address at which Telegram reaches this gateway. Set it, or connect in polling mode.',
        );
      }
      const secrets = { botToken: request.botToken };
      const me = await connecting('getMe', () => api(secrets).getMe());
      return {
        externalId: String(me.id),
        botUsername: me.username,
        mode: request.mode,
        secrets,
        webhookSecret: request.mode === 'webhook' ? newWebhookSecret() : undefined,
      };
    },

    async activate(channel: ChannelRow, secrets: ChannelSecrets, webhookSecret: string | undefined) {
      const bot = api(secrets);
      if (channel.mode === 'webhook') {
        await connecting('setWebhook', () =>
          bot.setWebhook(telegramWebhookUrl(publicBaseUrl!, channel.id), {
            secret_token: webhookSecret,
            allowed_updates: ['message'],
            // we answer at once, so one connection is enough, and with one Telegram delivers strictly in order
            max_connections: 1,
          }),
        );
      } else {
        // getUpdates is refused while a webhook is set (say, from an earlier connection in webhook mode)
        await connecting('deleteWebhook', () => bot.deleteWebhook());
      }
    },

    async disconnect(channel: ChannelRow, secrets: ChannelSecrets) {
      if (channel.mode === 'webhook') await api(secrets).deleteWebhook();
    },

    async send(_channel: ChannelRow, secrets: ChannelSecrets, chatId: string, markdown: string) {
      const bot = api(secrets);
      for (const message of formatForTelegram(markdown))
        await sendOne(bot, chatId, message.html, message.plain);
    },

    async typing(_channel: ChannelRow, secrets: ChannelSecrets, chatId: string) {
      await api(secrets).sendChatAction(chatId, 'typing');
    },

    pairingLink(channel: Pick<ChannelRow, 'botUsername'>, code: string) {
      return channel.botUsername ? `https://t.me/${channel.botUsername}?start=${code}` : null;
    },
  };
}
export type TelegramConnector = ReturnType<typeof createTelegramConnector>;
