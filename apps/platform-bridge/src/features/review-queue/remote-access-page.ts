import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bridgeRoutes } from '@pa/contracts';
import type { Router } from 'express';
import { createSettingsPage } from './settings-page.ts';

/** The page's static files: index.html, its ES modules and its stylesheet. */
export const REMOTE_ACCESS_WEB_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../web/remote-access',
);

// GET /settings/remote-access (issue 37) and its assets under /settings/remote-access/…: remote keys, the tenant's
// assistant flags, signed-event endpoints and the access audit, over the remote-access admin API.
export function createRemoteAccessPage(): Router {
  return createSettingsPage(bridgeRoutes.remoteAccessPage, REMOTE_ACCESS_WEB_DIR);
}
