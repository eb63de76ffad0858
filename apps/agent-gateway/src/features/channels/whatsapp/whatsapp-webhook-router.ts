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
import { signatureIsValid, verifyTokenMatches } from './webhook-signature.ts';
import { textMessagesOf } from './whatsapp-messages.ts';

// Meta's two calls on a channel's callback URL (SPEC §3.8): the verification handshake (GET) when the URL is
// saved in the app's dashboard, and the notifications (POST). A POST is believed only when its
// X-Hub-Signature-256 is the HMAC of its raw bytes with the channel's app secret; it is answered 200 at once (Meta
// retries anything slower or non-2xx) and each text message then goes to the channel conversation, keyed by its
// message id so that Meta's redeliveries are handled once.
//
// This router must be mounted BEFORE the app's express.json: the signature is over the bytes Meta sent, which a
// parsed-and-reserialised body does not reproduce (Meta escapes "/" and non-ASCII characters).

/** 1 MiB: Meta batches up to 1000 changes in one notification (text only: media come as ids, not bytes). */
const BODY_LIMIT_BYTES = 1024 * 1024;

export interface WhatsAppWebhookChannel {
  id: string;
  type: string;
  externalId: string;
  webhookSecretHash: Uint8Array | null;
}

export interface WhatsAppWebhookDeps<C extends WhatsAppWebhookChannel> {
  /** the channel by id alone (the webhook knows no worker), null when there is none */
  findChannel(channelId: string): Promise<C | null>;
  appSecretOf(channel: C): string;
  handleIncomingText(input: {
    channel: C;
    chatId: string;
    chatTitle: string | null;
    text: string;
    updateKey: string;
  }): Promise<unknown>;
  logger: Logger;
}

export function createWhatsAppWebhookRouter<C extends WhatsAppWebhookChannel>(
  deps: WhatsAppWebhookDeps<C>,
): Router {
  const router = Router();
  // the channel whose app secret signed the request, for the handler that follows the check
  const signedBy = new WeakMap<Request, C>();

  async function channelOf(channelId: string): Promise<C> {
    const channel = await deps.findChannel(channelId);
    if (!channel || channel.type !== 'whatsapp') {
      throw new NotFound('channel-not-found', 'There is no WhatsApp channel with this id.');
    }
    return channel;
  }

  registerRoute(router, gatewayRoutes.whatsappVerify, async ({ params, query }, _req, res) => {
    const channel = await channelOf(params.channelId);
    if (
      query['hub.mode'] !== 'subscribe' ||
      !verifyTokenMatches(query['hub.verify_token'], channel.webhookSecretHash)
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
      if ((err as { type?: string } | undefined)?.type === 'entity.too.large') {
        next(new PayloadTooLarge('payload-too-large', 'The notification is larger than 1 MiB.'));
        return;
      }
      next(err);
    });
  };

  const checkSignature: RequestHandler = async (req, _res, next) => {
    const params = ChannelIdParams.safeParse(req.params);
    // an invalid id is reported by the route's own parsing (400) before anything else is read
    if (!params.success) return next();
    const channel = await channelOf(params.data.channelId);
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    if (!signatureIsValid(raw, req.get('x-hub-signature-256'), deps.appSecretOf(channel))) {
      throw new Unauthorized(
        'webhook-signature-invalid',
        'X-Hub-Signature-256 is missing or is not the HMAC-SHA256 of the body with the app secret.',
        { realm: 'whatsapp-webhook', error: 'invalid_token' },
      );
    }
    signedBy.set(req, channel);
    next();
  };

  const parseJson: RequestHandler = (req, _res, next) => {
    const raw = Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '';
    try {
      req.body = JSON.parse(raw) as unknown;
    } catch {
      throw new MalformedInput('malformed-json', 'The request body is not valid JSON.');
    }
    next();
  };

  registerRoute(
    router,
    gatewayRoutes.whatsappWebhook,
    { before: [readRaw, checkSignature, requireJson, parseJson] },
    ({ body }, req, res) => {
      const channel = signedBy.get(req)!;
      // Meta wants its 200 quickly; the turns run after it.
      res.status(200).end();
      // One Meta app may serve several numbers through the same callback URL: only this channel's number counts.
      const messages = textMessagesOf(body).filter(
        (m) => m.phoneNumberId === null || m.phoneNumberId === channel.externalId,
      );
      void (async () => {
        for (const m of messages) {
          await deps
            .handleIncomingText({ channel, chatId: m.from, chatTitle: m.name, text: m.text, updateKey: m.id })
            .catch((err: unknown) => {
              deps.logger.error(
                { err, channel_id: channel.id, message_id: m.id },
                'WhatsApp message could not be handled',
              );
            });
        }
      })();
    },
  );

  return router;
}
