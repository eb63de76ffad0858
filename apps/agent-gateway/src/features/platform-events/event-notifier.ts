import type { PlatformEventType } from '@pa/contracts';
import type { Logger } from 'pino';
import type { ChannelConnectors } from '../channels/channel-connector.ts';
import type { ChannelSecretsBox } from '../channels/channel-secrets.ts';
import type { ChannelsRepository } from '../channels/channels-repository.ts';
import { describeError } from '../channels/safe-error.ts';

// Tells a worker's connected channels (each paired chat) about an event, through the connector that sends the
// chat's replies. After the event is stored: a channel that fails is logged and never fails the ingress, whose
// answer the platform waits for. A `knowledge.changed` event is for the workers' knowledge sync, not their chats:
// their copies are synced at once in this process (the sync was also asked for in the event's transaction).
export function createEventNotifier(deps: {
  channels: ChannelsRepository;
  secrets: ChannelSecretsBox;
  connectors: ChannelConnectors;
  logger: Logger;
  knowledge?: { syncNow(workerId: string): Promise<unknown> };
}) {
  return async (workerIds: readonly string[], message: string, type?: PlatformEventType): Promise<void> => {
    if (type === 'knowledge.changed') {
      await Promise.all(workerIds.map((workerId) => deps.knowledge?.syncNow(workerId)));
      return;
    }
    await Promise.all(
      workerIds.map(async (workerId) => {
        for (const row of await deps.channels.list(workerId)) {
          if (row.status !== 'connected' || !row.chatId) continue;
          const connector = deps.connectors[row.type];
          if (!connector) continue;
          try {
            await connector.send(row, deps.secrets.open(row.secretsCiphertext), row.chatId, message);
          } catch (err) {
            deps.logger.warn(
              { workerId, channelId: row.id, err: describeError(err) },
              'platform event not delivered to the channel',
            );
          }
        }
      }),
    );
  };
}
export type EventNotifier = ReturnType<typeof createEventNotifier>;
