import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bridgeRoutes, REVIEW_QUEUE_PAGE } from '@pa/contracts';
import { registerRoute, servedQuietly } from '@pa/http-kit';
import express, { Router } from 'express';
import helmet from 'helmet';

/** The page's static files: index.html, its ES modules and its stylesheet. */
export const REVIEW_QUEUE_WEB_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../web/review-queue',
);

// The page holds an admin key, so it allows nothing but its own files and its own origin: no inline script or
// style, no framing (clickjacking an Approve button), no <base> or form posts that could redirect the key.
const PAGE_CSP = helmet.contentSecurityPolicy({
  useDefaults: false,
  directives: {
    defaultSrc: ["'self'"],
    connectSrc: ["'self'"],
    imgSrc: ["'self'", 'data:'],
    styleSrc: ["'self'"],
    scriptSrc: ["'self'"],
    frameAncestors: ["'none'"],
    baseUri: ["'none'"],
    formAction: ["'none'"],
  },
});

// GET /settings/review-queue (docs/bridge-api.md) and its assets under /settings/review-queue/…. Served to anyone: the
// page itself reads nothing until the admin pastes a key, and every call it makes goes to the admin API, which
// checks the key, its scopes and the tenant's flag.
export function createReviewQueuePage(): Router {
  const router = Router();
  router.use(REVIEW_QUEUE_PAGE, PAGE_CSP);
  registerRoute(router, bridgeRoutes.reviewQueuePage, (_input, _req, res) => {
    res.sendFile(path.join(REVIEW_QUEUE_WEB_DIR, 'index.html'), { headers: { 'Cache-Control': 'no-cache' } });
  });
  // its files are logged at debug when served, like the page itself (bridgeRoutes.reviewQueuePage.logQuietly)
  router.use(
    REVIEW_QUEUE_PAGE,
    servedQuietly(express.static(REVIEW_QUEUE_WEB_DIR, { index: false, maxAge: 0 })),
  );
  return router;
}
