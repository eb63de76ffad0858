import type { Channel } from '@pa/contracts';
import type { ChannelRow } from './channels-repository.ts';

/** The API's view of a channel: never a secret, never a hash. */
export function channelView(row: ChannelRow): Channel {
  return {
    id: row.id,
    workerId: row.workerId,
    type: row.type as Channel['type'],
    mode: row.mode as Channel['mode'],
    botUsername: row.botUsername,
    status: row.status as Channel['status'],
    chat: row.chatId ? { id: row.chatId, title: row.chatTitle } : null,
    connectedAt: row.connectedAt?.toISOString() ?? null,
    lastError: row.lastError,
    pairingExpiresAt: row.pairingExpiresAt?.toISOString() ?? null,
  };
}
