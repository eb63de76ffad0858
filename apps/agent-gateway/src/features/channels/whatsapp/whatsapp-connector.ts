import type { ConnectChannelRequest } from '@pa/contracts';
import { BadGateway, Unprocessable } from '@pa/http-kit';
import type { ChannelConnector } from '../channel-connector.ts';
import type { ChannelSecrets, WhatsAppSecrets } from '../channel-secrets.ts';
import { createGraphClient, GraphError, type GraphClient } from './graph-client.ts';
import { formatForWhatsApp } from './whatsapp-format.ts';

// The WhatsApp Cloud API side of a channel (docs/channels.md): connecting checks the access token against the phone
// number with one Graph call, and replies go out with `POST /{phoneNumberId}/messages`. There is nothing to undo
// on disconnect: the callback URL lives in the Meta app's dashboard, where its owner set it, and a notification
// for a deleted channel is answered 404. The verify token is kept only as a hash (the channel's webhook secret);
// the access token and the app secret, which are needed later, go into the sealed secrets.

export function whatsappSecretsOf(secrets: ChannelSecrets): WhatsAppSecrets {
  const { accessToken, appSecret } = secrets;
  if (!accessToken || !appSecret) throw new Error('the channel’s WhatsApp secrets are incomplete');
  return { accessToken, appSecret };
}

/** Chats whose latest message id is remembered for the typing indicator; the oldest are forgotten first. */
const MAX_REMEMBERED_CHATS = 10_000;

export type WhatsAppConnector = ChannelConnector & {
  /** The webhook tells the connector each message it takes in, so that `typing` can answer to it. */
  received(channelId: string, chatId: string, messageId: string): void;
};

export function createWhatsAppConnector(deps: { baseUrl: string; graph?: GraphClient }): WhatsAppConnector {
  const graph = deps.graph ?? createGraphClient({ baseUrl: deps.baseUrl });
  // WhatsApp's typing indicator is shown in answer to a received message id: the latest per chat, used once (it
  // lasts until the reply or 25 s, so the conversation's repeats every few seconds need not be sent again).
  const latest = new Map<string, string>();

  return {
    async connect(request: ConnectChannelRequest) {
      if (request.type !== 'whatsapp')
        throw new Error(`the WhatsApp connector got a ${request.type} request`);
      const number = await graph
        .phoneNumber(request.phoneNumberId, request.accessToken)
        .catch((err: unknown) => {
          throw connectError(err, request.phoneNumberId);
        });
      return {
        externalId: number.id,
        botUsername: null,
        // Meta only pushes: a WhatsApp number is always in webhook mode
        mode: 'webhook',
        secrets: { accessToken: request.accessToken, appSecret: request.appSecret },
        webhookSecret: request.verifyToken,
      };
    },

    async disconnect() {},

    async send(channel, secrets, chatId, markdown) {
      const { accessToken } = whatsappSecretsOf(secrets);
      for (const body of formatForWhatsApp(markdown))
        await graph.sendText(channel.externalId, accessToken, chatId, body);
    },

    received(channelId, chatId, messageId) {
      const key = `${channelId}:${chatId}`;
      latest.delete(key);
      latest.set(key, messageId);
      if (latest.size > MAX_REMEMBERED_CHATS) latest.delete(latest.keys().next().value!);
    },

    async typing(channel, secrets, chatId) {
      const key = `${channel.id}:${chatId}`;
      const messageId = latest.get(key);
      if (!messageId) return;
      latest.delete(key);
      await graph.typing(channel.externalId, whatsappSecretsOf(secrets).accessToken, messageId);
    },

    // No link: a wa.me click-to-chat link would need the number's display number, which is not kept; the code is
    // typed (or pasted) into the chat as it is.
    pairingLink: () => null,
  };
}

function connectError(err: unknown, phoneNumberId: string): Error {
  if (!(err instanceof GraphError)) return err as Error;
  switch (err.kind) {
    case 'unauthorized':
      return new Unprocessable(
        'channel-token-rejected',
        'WhatsApp refused the access token (invalid or expired). Use a permanent token of a system user (Meta Business Settings).',
      );
    case 'rejected':
      return new Unprocessable(
        'channel-token-rejected',
        `The access token cannot use the phone number id ${phoneNumberId}: check the id under WhatsApp › API Setup and the token’s whatsapp_business_messaging permission.`,
      );
    case 'rate-limited':
      return new BadGateway(
        'channel-unreachable',
        'The WhatsApp Cloud API is rate-limiting these calls; try again shortly.',
        { title: 'WhatsApp unreachable' },
      );
    case 'unavailable':
      return new BadGateway('channel-unreachable', `The WhatsApp Cloud API failed: ${err.message}`, {
        title: 'WhatsApp unreachable',
      });
  }
}
