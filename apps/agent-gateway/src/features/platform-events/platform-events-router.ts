import { gatewayRoutes, WORKERS_BASE } from '@pa/contracts';
import {
  FeatureDisabled,
  MalformedInput,
  PayloadTooLarge,
  registerRoute,
  requireJson,
  Unauthorized,
  ValidationFailed,
} from '@pa/http-kit';
import express, { type RequestHandler, Router } from 'express';
import type { Logger } from 'pino';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { WorkersRepository } from '../workspace/workers-repository.ts';
import type { EventNotifier } from './event-notifier.ts';
import { eventMessage } from './event-message.ts';
import type { PlatformEventsRepository } from './platform-events-repository.ts';

const BODY_LIMIT_BYTES = 64 * 1024;

// POST /api/platform/events: the platform's signed events. Mount BEFORE the app's express.json: the
// signature is over the bytes sent. `standardwebhooks` checks the signature in constant time and refuses a
// timestamp more than 5 minutes off. The event is stored per bound worker and a repeated `webhook-id` changes
// nothing; the workers' channels are told after the answer's transaction, never holding it up.
export function createPlatformEventsIngress(deps: {
  enabled: boolean;
  secret: string | undefined;
  events: PlatformEventsRepository;
  notify: EventNotifier;
  logger: Logger;
}): Router {
  const router = Router();
  const verifier = deps.enabled && deps.secret ? new Webhook(deps.secret) : null;

  const enabled: RequestHandler = (_req, _res, next) => {
    if (!verifier)
      throw new FeatureDisabled('not-found', 'Platform events are off (PLATFORM_EVENT_WEBHOOKS).');
    next();
  };
  const rawBody = express.raw({ type: () => true, limit: BODY_LIMIT_BYTES });
  const readRaw: RequestHandler = (req, res, next) => {
    rawBody(req, res, (err?: unknown) => {
      if ((err as { type?: unknown } | undefined)?.type === 'entity.too.large') {
        next(new PayloadTooLarge('payload-too-large', 'An event is at most 64 KiB.'));
        return;
      }
      next(err);
    });
  };
  const verify: RequestHandler = (req, _res, next) => {
    const raw = Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '';
    const headers = {
      'webhook-id': req.get('webhook-id') ?? '',
      'webhook-timestamp': req.get('webhook-timestamp') ?? '',
      'webhook-signature': req.get('webhook-signature') ?? '',
    };
    let payload: unknown;
    try {
      payload = verifier!.verify(raw, headers);
    } catch (err) {
      // signed, but not JSON
      if (err instanceof SyntaxError)
        throw new MalformedInput('malformed-json', 'The request body is not valid JSON.');
      // a signature that does not match, missing headers, or a timestamp more than 5 minutes off
      const reason = err instanceof WebhookVerificationError ? err.message : 'not verified';
      throw new Unauthorized(
        'webhook-signature-invalid',
        `The event's Standard Webhooks signature was not accepted (${reason}).`,
      );
    }
    req.body = payload;
    next();
  };
  registerRoute(
    router,
    gatewayRoutes.platformEvents,
    { before: [enabled, readRaw, requireJson, verify] },
    async ({ body }, req, res) => {
      const webhookId = req.get('webhook-id')!;
      const message = eventMessage(body);
      const taken = await deps.events.takeIn(webhookId, body, message);
      res.json({ received: true, duplicate: taken.duplicate, workers: taken.workerIds.length });
      if (!taken.duplicate && taken.workerIds.length > 0) {
        void deps.notify(taken.workerIds, message, body.type).catch((err: unknown) => {
          deps.logger.error({ err, webhookId }, 'telling the channels about a platform event failed');
        });
      }
    },
  );
  return router;
}

/** GET /api/assistant/workers/:workerId/events, mounted at WORKERS_BASE behind the workspace guard. */
export function createWorkerEventsRouter(deps: {
  events: PlatformEventsRepository;
  workers: WorkersRepository;
}): Router {
  const router = Router({ mergeParams: true });
  registerRoute(
    router,
    gatewayRoutes.listWorkerEvents,
    { mountedAt: WORKERS_BASE },
    async ({ params: { workerId }, query }, req, res) => {
      const workspaceId = req.workspaceId!;
      if (query.cursor !== undefined && !/^[0-9]{1,19}$/.test(query.cursor)) {
        throw new ValidationFailed([{ pointer: '#/cursor', detail: 'is not a cursor returned by this API' }]);
      }
      await deps.workers.require(workspaceId, workerId);
      res.json(await deps.events.page(workspaceId, workerId, query.limit, query.cursor));
    },
  );
  return router;
}
