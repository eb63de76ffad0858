import { BadGateway, Unprocessable } from '@pa/http-kit';
import { createGraphClient, GraphError, type GraphClient } from './graph-client.ts';

// The WhatsApp Cloud API side of a channel (SPEC §3.8): connecting checks the access token against the phone
// number with one Graph call, and replies go out with `POST /{phoneNumberId}/messages`. There is nothing to undo
// on disconnect: the callback URL lives in the Meta app's dashboard, where the owner set it, and a notification
// for a deleted channel is answered 404. The verify token is kept only as a hash (the service's webhook secret);
// the access token and the app secret, which we must use later, go into the encrypted secrets.

export interface WhatsAppSecrets {
  accessToken: string;
  appSecret: string;
}

export interface WhatsAppConnectRequest {
  type: 'whatsapp';
  accessToken: string;
  phoneNumberId: string;
  appSecret: string;
  verifyToken: string;
}

export function createWhatsAppConnector(deps: { baseUrl: string; graph?: GraphClient }) {
  const graph = deps.graph ?? createGraphClient({ baseUrl: deps.baseUrl });

  return {
    async connect(request: WhatsAppConnectRequest) {
      const number = await graph
        .phoneNumber(request.phoneNumberId, request.accessToken)
        .catch((err: unknown) => {
          throw connectError(err, request.phoneNumberId);
        });
      const secrets: WhatsAppSecrets = { accessToken: request.accessToken, appSecret: request.appSecret };
      return {
        externalId: number.id,
        botUsername: null,
        // Meta only pushes: a WhatsApp number is always in webhook mode
        mode: 'webhook' as const,
        secrets,
        webhookSecret: request.verifyToken,
      };
    },

    async disconnect(): Promise<void> {},

    /** One message; the caller splits long replies (WhatsApp takes at most 4096 characters). */
    async send(channel: { externalId: string }, secrets: WhatsAppSecrets, chatId: string, text: string) {
      await graph.sendText(channel.externalId, secrets.accessToken, chatId, text);
    },

    // The Cloud API's typing indicator belongs to a received message id (it marks it read as well), which this
    // call does not get; WhatsApp shows no "typing…" for us, and the reply simply arrives.
    async typing(): Promise<void> {},
  };
}
export type WhatsAppConnector = ReturnType<typeof createWhatsAppConnector>;

function connectError(err: unknown, phoneNumberId: string): Error {
  if (!(err instanceof GraphError)) return err as Error;
  switch (err.kind) {
    case 'unauthorized':
      return new Unprocessable(
        'channel-token-rejected',
        'WhatsApp refused the access token (invalid or expired). Create a permanent token for a system user in Meta Business Settings.',
      );
    case 'rejected':
      return new Unprocessable(
        'channel-token-rejected',
        `The access token cannot use the phone number id ${phoneNumberId}: check the id under WhatsApp › API Setup and the token's whatsapp_business_messaging permission.`,
      );
    case 'rate-limited':
      return new BadGateway(
        'channel-unreachable',
        'The WhatsApp Cloud API is rate-limiting us; try again shortly.',
      );
    case 'unavailable':
      return new BadGateway(
        'channel-unreachable',
        `The WhatsApp Cloud API could not be reached: ${err.message}`,
      );
  }
}
