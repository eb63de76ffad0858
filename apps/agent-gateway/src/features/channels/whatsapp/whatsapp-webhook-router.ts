import { ChannelIdParams, gatewayRoutes } from '@pa/contracts';
import {
  Forbidden,
  MalformedInput,
  NotFound,
  PayloadTooLarge,
  registerRoute,
  requireJson,
  Unauthorized,
  ValidationFailed,
} from '@pa/http-kit';
import express, { type Request, type RequestHandler, Router } from 'express';
import type { Logger } from 'pino';
import type { ChannelConversation } from '../channel-conversation.ts';
import type { ChannelSecretsBox } from '../channel-secrets.ts';
import type { ChannelRow, ChannelsRepository } from '../channels-repository.ts';
import { createKeyedQueue } from '../keyed-queue.ts';
import { matchesHash } from '../pairing.ts';
import { describeError } from '../safe-error.ts';
import { signatureIsValid } from './webhook-signature.ts';
import { type WhatsAppConnector, whatsappSecretsOf } from './whatsapp-connector.ts';
import { textMessagesOf } from './whatsapp-messages.ts';

// Meta's two calls on a channel's callback URL: the verification handshake (GET) when the URL is saved
// in the app's dashboard, and the notifications (POST). A POST is believed only when its X-Hub-Signature-256 is
// the HMAC of its raw bytes with the channel's app secret. It is answered 200 as soon as its messages are taken in
// (recorded: Meta retries what is slow or not 2xx, so a failure to record is a 5xx and comes again), each by the
// channel conversation keyed by its message id, so that Meta's redeliveries are handled once.
//
// Mount this router BEFORE the app's express.json: the signature is over the bytes Meta sent, which a body parsed
// and serialised again does not reproduce.

/** Meta batches changes in one notification; text only (media come as ids), so 1 MiB is ample. */
const BODY_LIMIT_BYTES = 1024 * 1024;

export function createWhatsAppWebhookRouter(deps: {
  channels: Pick<ChannelsRepository, 'findForWebhook'>;
  secrets: ChannelSecretsBox;
  conversation: Pick<ChannelConversation, 'takeIn'>;
  connector: Pick<WhatsAppConnector, 'received'>;
  logger: Logger;
}): Router {
  const { channels, secrets, conversation, connector, logger } = deps;
  const router = Router();
  // the channel whose app secret signed a request, for the route's handler
  const signedBy = new WeakMap<Request, ChannelRow>();
  // One channel's notifications are checked one after another, and each hands its messages to the conversation
  // before the next is looked at: the order they arrived in is the order each chat's messages are handled in.
  const intake = createKeyedQueue();
  // The handlers take their messages in one notification after another too: joined (synchronously) in the order
  // the checks released them.
  const handOver = createKeyedQueue();

  async function channelOf(channelId: string): Promise<ChannelRow> {
    const channel = await channels.findForWebhook(channelId, 'whatsapp');
    if (!channel) throw new NotFound('channel-not-found', 'There is no WhatsApp channel with this id.');
    return channel;
  }

  registerRoute(router, gatewayRoutes.whatsappVerify, async ({ params, query }, _req, res) => {
    const channel = await channelOf(params.channelId);
    if (
      query['hub.mode'] !== 'subscribe' ||
      !matchesHash(query['hub.verify_token'], channel.webhookSecretHash)
    ) {
      throw new Forbidden(
        'webhook-secret-invalid',
        'hub.verify_token is not the verify token given when the channel was connected.',
      );
    }
    const challenge = query['hub.challenge'];
    if (!challenge) {
      throw new ValidationFailed(
        [{ pointer: '/hub.challenge', detail: 'is required' }],
        'hub.challenge is missing.',
      );
    }
    res.status(200).type('text/plain').send(challenge);
  });

  // The raw bytes, kept as a Buffer in req.body until the signature is checked.
  const rawBody = express.raw({ type: () => true, limit: BODY_LIMIT_BYTES });
  const readRaw: RequestHandler = (req, res, next) => {
    rawBody(req, res, (err?: unknown) => {
      if ((err as { type?: unknown } | undefined)?.type === 'entity.too.large') {
        next(new PayloadTooLarge('payload-too-large', 'The notification is larger than 1 MiB.'));
        return;
      }
      next(err);
    });
  };

  // Runs the rest of the request (content type, JSON, the route's schema and handler, which are synchronous up to
  // the hand-over) inside the channel's intake slot.
  const checkSignature: RequestHandler = async (req, _res, next) => {
    const params = ChannelIdParams.safeParse(req.params);
    // an invalid id is reported by the route's own parsing (400)
    if (!params.success) return next();
    await intake.run(params.data.channelId, async () => {
      const channel = await channelOf(params.data.channelId);
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const { appSecret } = whatsappSecretsOf(secrets.open(channel.secretsCiphertext));
      if (!signatureIsValid(raw, req.get('x-hub-signature-256'), appSecret)) {
        throw new Unauthorized(
          'webhook-signature-invalid',
          'X-Hub-Signature-256 is missing or is not the HMAC-SHA256 of the body with the app secret.',
        );
      }
      signedBy.set(req, channel);
      next();
    });
  };

  const parseJson: RequestHandler = (req, _res, next) => {
    try {
      req.body = JSON.parse((req.body as Buffer).toString('utf8')) as unknown;
    } catch {
      throw new MalformedInput('malformed-json', 'The request body is not valid JSON.');
    }
    next();
  };

  registerRoute(
    router,
    gatewayRoutes.whatsappWebhook,
    { before: [readRaw, checkSignature, requireJson, parseJson] },
    async ({ body }, req, res) => {
      const channel = signedBy.get(req)!;
      // One Meta app may send several numbers' notifications to one callback URL: only this channel's count.
      const messages = textMessagesOf(body).filter(
        (m) => m.phoneNumberId === null || m.phoneNumberId === channel.externalId,
      );
      await handOver.run(channel.id, async () => {
        for (const m of messages) {
          connector.received(channel.id, m.from, m.id);
          const taken = await conversation.takeIn({
            channel,
            chatId: m.from,
            chatTitle: m.name,
            text: m.text,
            updateKey: m.id,
          });
          void taken?.done.catch((err: unknown) =>
            logger.error(
              { channel_id: channel.id, error: describeError(err) },
              'WhatsApp message could not be handled',
            ),
          );
        }
      });
      res.status(200).end();
    },
  );

  return router;
}
