import type { Logger } from 'pino';
import type { ChannelConnectors } from '../channels/channel-connector.ts';
import type { ChannelSecretsBox } from '../channels/channel-secrets.ts';
import type { ChannelsRepository } from '../channels/channels-repository.ts';
import { describeError } from '../channels/safe-error.ts';

// Tells a worker's connected channels (each paired chat) about an event, through the connector that sends the
// chat's replies. After the event is stored: a channel that fails is logged and never fails the ingress, whose
// answer the platform waits for.
export function createEventNotifier(deps: {
  channels: ChannelsRepository;
  secrets: ChannelSecretsBox;
  connectors: ChannelConnectors;
  logger: Logger;
}) {
  return async (workerIds: readonly string[], message: string): Promise<void> => {
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
