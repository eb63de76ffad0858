import type { ChannelMode, ConnectChannelRequest } from '@pa/contracts';
import type { ChannelSecrets } from './channel-secrets.ts';
import type { ChannelRow } from './channels-repository.ts';

/** What a connector learnt by checking the credentials with its platform. */
export interface ConnectedIdentity {
  /** the bot's numeric id (Telegram) or the phone number id (WhatsApp): one worker per value */
  externalId: string;
  botUsername: string | null;
  mode: ChannelMode;
  /** sealed into the channel row; handed back to every call below */
  secrets: ChannelSecrets;
  /** a secret the platform will present on every webhook call; only its hash is stored */
  webhookSecret?: string | undefined;
}

/**
 * One messaging platform, as the channel core sees it. The core (channels-service.ts, channel-conversation.ts)
 * knows nothing of Telegram or WhatsApp; a connector knows nothing of workers, pairing or chat turns.
 * Failures are thrown as the http-kit error kinds (422 credentials refused, 502 platform unreachable), with
 * details that never contain a secret.
 */
export interface ChannelConnector {
  /** Checks the credentials with the platform (Telegram: getMe). Nothing is stored yet. */
  connect(request: ConnectChannelRequest): Promise<ConnectedIdentity>;
  /**
   * Once the channel row exists: points the platform at this gateway (Telegram: setWebhook to the channel's URL
   * with `webhookSecret`, or deleteWebhook for polling). A failure here removes the row again.
   */
  activate?(channel: ChannelRow, secrets: ChannelSecrets, webhookSecret: string | undefined): Promise<void>;
  /** When the channel is deleted (Telegram: deleteWebhook in webhook mode). Best effort: a failure is logged. */
  disconnect(channel: ChannelRow, secrets: ChannelSecrets): Promise<void>;
  /**
   * Sends a reply written in the provider's Markdown: the connector formats it for its platform and splits it
   * into messages the platform accepts, sent in order.
   */
  send(channel: ChannelRow, secrets: ChannelSecrets, chatId: string, markdown: string): Promise<void>;
  /** Shows that the bot is working on an answer (Telegram: sendChatAction typing, which lasts ~5 s). */
  typing(channel: ChannelRow, secrets: ChannelSecrets, chatId: string): Promise<void>;
  /** A link that opens the chat with the pairing code ready to send, when the platform has one. */
  pairingLink?(channel: Pick<ChannelRow, 'botUsername'>, code: string): string | null;
}

export type ChannelConnectors = Partial<Record<string, ChannelConnector>>;
