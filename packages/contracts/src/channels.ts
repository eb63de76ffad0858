import { z } from 'zod';
import { text } from './text.ts';

// Messaging channels of a worker (docs/channels.md): a Telegram bot or a WhatsApp Cloud API number. Secrets go in and
// never come out: no answer carries a token, an app secret or a verify token.

export const CHANNEL_TYPES = ['telegram', 'whatsapp'] as const;
export const ChannelType = z.enum(CHANNEL_TYPES);
export const ChannelMode = z.enum(['polling', 'webhook']);
export const ChannelStatus = z.enum(['pending_pairing', 'connected', 'error']);

/** Pairing codes: 8 characters of an alphabet without look-alikes (no 0/O, 1/I/L), valid 10 minutes, used once. */
export const PAIRING_ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';
export const PAIRING_CODE_LENGTH = 8;
export const PAIRING_TTL_MINUTES = 10;

// Telegram bot tokens are `<bot id>:<35 characters>`; the pattern is loose so that a new token format is not refused
// by us before the Bot API has said so.
const BotToken = text().regex(
  /^[0-9]{1,20}:[A-Za-z0-9_-]{20,100}$/,
  'is not a Telegram bot token (123456:ABC…)',
);

export const ConnectTelegramRequest = z.strictObject({
  type: z.literal('telegram'),
  botToken: BotToken,
  mode: ChannelMode.default('polling').describe(
    '`polling` (long-polls getUpdates; works behind NAT) or `webhook` (needs PUBLIC_BASE_URL reachable by Telegram over HTTPS)',
  ),
});

export const ConnectWhatsAppRequest = z.strictObject({
  type: z.literal('whatsapp'),
  accessToken: text().min(10).max(1000),
  phoneNumberId: text().regex(/^[0-9]{5,30}$/, 'is not a WhatsApp phone number id'),
  appSecret: text().min(8).max(200),
  verifyToken: text().min(8).max(200),
});

export const ConnectChannelRequest = z.discriminatedUnion('type', [
  ConnectTelegramRequest,
  ConnectWhatsAppRequest,
]);

export const ChannelChat = z.strictObject({ id: text(), title: text().nullable() });

export const Channel = z.strictObject({
  id: z.uuid(),
  workerId: z.uuid(),
  type: ChannelType,
  mode: ChannelMode,
  botUsername: text().nullable().describe('the Telegram bot’s @username (without @); null for WhatsApp'),
  status: ChannelStatus,
  chat: ChannelChat.nullable().describe('the paired chat; null until a chat sends the pairing code'),
  connectedAt: z.iso.datetime().nullable(),
  lastError: text().nullable(),
  pairingExpiresAt: z.iso
    .datetime()
    .nullable()
    .describe('while pending: when the current pairing code stops working (the code itself is shown once)'),
});

export const ChannelCreated = Channel.extend({
  status: z.literal('pending_pairing'),
  pairingCode: text().length(PAIRING_CODE_LENGTH),
  pairingExpiresAt: z.iso.datetime(),
  pairingLink: text()
    .nullable()
    .describe(
      'Telegram: `https://t.me/<bot>?start=<code>`, which opens the chat with the code ready to send',
    ),
});

export const ChannelsResponse = z.strictObject({ channels: z.array(Channel) });

export const PairingCodeResponse = z.strictObject({
  channelId: z.uuid(),
  pairingCode: text().length(PAIRING_CODE_LENGTH),
  pairingExpiresAt: z.iso.datetime(),
  pairingLink: text().nullable(),
});

export const ChannelParams = z.strictObject({
  workerId: z.uuid('must be a worker UUID'),
  channelId: z.uuid('must be a channel UUID'),
});
export const ChannelIdParams = z.strictObject({ channelId: z.uuid('must be a channel UUID') });

// The webhook routes take what Telegram and Meta send. Telegram's Update and WhatsApp's notification are loose:
// they grow fields all the time and we read a few of them.
export const TelegramUpdate = z.looseObject({ update_id: z.number().int().min(0) });
export const WhatsAppVerifyQuery = z.looseObject({
  'hub.mode': text().optional(),
  'hub.verify_token': text().optional(),
  'hub.challenge': text().optional(),
});
export const WhatsAppNotification = z.looseObject({ object: text(), entry: z.array(z.looseObject({})) });

export type ChannelType = z.infer<typeof ChannelType>;
export type ChannelMode = z.infer<typeof ChannelMode>;
export type ChannelStatus = z.infer<typeof ChannelStatus>;
export type Channel = z.infer<typeof Channel>;
export type ChannelCreated = z.infer<typeof ChannelCreated>;
export type ConnectChannelRequest = z.infer<typeof ConnectChannelRequest>;
export type TelegramUpdate = z.infer<typeof TelegramUpdate>;
