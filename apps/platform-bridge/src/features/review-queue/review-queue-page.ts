import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bridgeRoutes } from '@pa/contracts';
import type { Router } from 'express';
import { createSettingsPage } from './settings-page.ts';

/** The page's static files: index.html, its ES modules and its stylesheet. */
export const REVIEW_QUEUE_WEB_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../web/review-queue',
);

// GET /settings/review-queue (docs/bridge-api.md) and its assets under /settings/review-queue/….
export function createReviewQueuePage(): Router {
  return createSettingsPage(bridgeRoutes.reviewQueuePage, REVIEW_QUEUE_WEB_DIR);
}
