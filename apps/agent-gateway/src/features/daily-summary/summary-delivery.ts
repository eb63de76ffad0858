import type { DeliveryChannel } from '@pa/contracts';
import type { ChannelConnectors } from '../channels/channel-connector.ts';
import type { ChannelSecretsBox } from '../channels/channel-secrets.ts';
import type { ChannelsRepository } from '../channels/channels-repository.ts';
import { describeError } from '../channels/safe-error.ts';
import { SummaryFailure } from './briefing-source.ts';

// Where a briefing goes. `web` needs nothing more: the run row keeps the briefing and the settings tab shows it.
// A messaging channel sends it to the chat paired with the worker's channel of that type, through the same
// connector that sends the chat's replies (it formats the Markdown for the platform and splits long messages).

export type DeliverBriefing = (workerId: string, channel: DeliveryChannel, briefing: string) => Promise<void>;

export function createSummaryDelivery(deps: {
  channels: ChannelsRepository;
  secrets: ChannelSecretsBox;
  connectors: ChannelConnectors;
}): DeliverBriefing {
  return async (workerId, channel, briefing) => {
    if (channel === 'web') return;
    const connector = deps.connectors[channel];
    const row = (await deps.channels.list(workerId)).find(
      (c) => c.type === channel && c.status === 'connected' && c.chatId !== null,
    );
    if (!connector || !row?.chatId) {
      throw new SummaryFailure(
        `the worker has no ${channel} chat paired to deliver to: connect the channel and pair a chat, or deliver on the web.`,
        true,
      );
    }
    try {
      await connector.send(row, deps.secrets.open(row.secretsCiphertext), row.chatId, briefing);
    } catch (err) {
      // describeError cuts a bot token out of the message; the words end up in the run's error
      throw new SummaryFailure(`sending on ${channel} failed: ${describeError(err).message}`, false);
    }
  };
}
