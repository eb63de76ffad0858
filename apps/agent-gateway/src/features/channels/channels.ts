import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from '../../config.ts';
import type { ChatService } from '../chat/chat-service.ts';
import type { WorkersRepository } from '../workspace/workers-repository.ts';
import { createChannelConversation } from './channel-conversation.ts';
import type { ChannelSecretsBox } from './channel-secrets.ts';
import type { ChannelUpdatesRepository } from './channel-updates-repository.ts';
import type { ChannelsRepository } from './channels-repository.ts';
import { createChannelsService } from './channels-service.ts';
import { createStopBus } from './stop-bus.ts';
import { createTelegramConnector } from './telegram/telegram-connector.ts';
import { createWhatsAppConnector } from './whatsapp/whatsapp-connector.ts';

type ConnectorConfig = Pick<Config, 'TELEGRAM_API_BASE_URL' | 'PUBLIC_BASE_URL' | 'WHATSAPP_API_BASE_URL'>;
type ChannelsConfig = ConnectorConfig & Pick<Config, 'REDIS_PREFIX'>;

/** One connector per messaging platform, as configured (the channels below and the daily summary's delivery). */
export function createChannelConnectors(config: ConnectorConfig, logger: Logger) {
  return {
    telegram: createTelegramConnector({
      apiRoot: config.TELEGRAM_API_BASE_URL,
      publicBaseUrl: config.PUBLIC_BASE_URL,
      logger,
    }),
    whatsapp: createWhatsAppConnector({ baseUrl: config.WHATSAPP_API_BASE_URL }),
  };
}
export type ConfiguredConnectors = ReturnType<typeof createChannelConnectors>;

// The messaging channels' parts, built once per process by the composition root (src/compose/): the routes and
// webhooks, the pollers and the daily summary's delivery share them.
export function createChannels(deps: {
  config: ChannelsConfig;
  repository: ChannelsRepository;
  updates: ChannelUpdatesRepository;
  secrets: ChannelSecretsBox;
  connectors: ConfiguredConnectors;
  /** null: this process is the only one (a /stop is never passed on) */
  redis: Redis | null;
  logger: Logger;
  chat: ChatService;
  workers: WorkersRepository;
  /** how long a claim on an update taken in lasts (UPDATE_CLAIM_MS unless given: tests) */
  updateClaimMs?: number;
}) {
  const { config, repository, updates, secrets, connectors, logger } = deps;
  const { telegram, whatsapp } = connectors;
  const service = createChannelsService({
    channels: repository,
    workers: deps.workers,
    secrets,
    connectors,
    logger,
  });
  const stops = createStopBus({
    redis: deps.redis,
    prefix: config.REDIS_PREFIX,
    logger,
    onStop: (chatKey) => conversation.stopRunning(chatKey),
  });
  const conversation = createChannelConversation({
    channels: repository,
    updates,
    secrets,
    connectors,
    chat: deps.chat,
    logger,
    claimMs: deps.updateClaimMs,
    publishStop: deps.redis ? stops.publish : undefined,
  });
  return { repository, updates, secrets, connectors, telegram, whatsapp, service, conversation };
}
export type Channels = ReturnType<typeof createChannels>;
