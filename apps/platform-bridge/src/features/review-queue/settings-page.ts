import type { RouteSpec } from '@pa/contracts';
import { registerRoute, servedQuietly } from '@pa/http-kit';
import express, { Router } from 'express';
import helmet from 'helmet';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// What the platform's settings pages (the review queue, remote access) share: each is a folder of static files —
// index.html, its ES modules and its stylesheet — served at its path under one strict CSP; what they all use (the
// admin-key sign-in, the page kit, the look) is the folder web/common, served the same way under /settings/common.

/** Where the settings pages find what they share. */
export const SETTINGS_SHARED_PATH = '/settings/common';
const SHARED_WEB_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../web/common');

// A page holds an admin key, so it allows nothing but its own files and its own origin: no inline script or
// style, no framing (clickjacking an Approve or Revoke button), no <base> or form posts that could redirect the key.
// The settings pages may import each other's modules and stylesheets: they are all 'self'.
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

// A folder's files, logged at debug when served like the page itself (the route's logQuietly).
function staticFiles(dir: string) {
  return servedQuietly(express.static(dir, { index: false, maxAge: 0 }));
}

// Served to anyone: a page reads nothing until the admin pastes a key, and every call it makes goes to the admin
// API, which checks the key and its scopes.
export function createSettingsPage(route: RouteSpec & { path: string }, webDir: string): Router {
  const router = Router();
  router.use(route.path, PAGE_CSP);
  registerRoute(router, route, (_input, _req, res) => {
    res.sendFile(path.join(webDir, 'index.html'), { headers: { 'Cache-Control': 'no-cache' } });
  });
  router.use(route.path, staticFiles(webDir));
  return router;
}

/** GET /settings/common/…: the files every settings page uses, under the pages' CSP. */
export function createSettingsSharedFiles(): Router {
  const router = Router();
  router.use(SETTINGS_SHARED_PATH, PAGE_CSP, staticFiles(SHARED_WEB_DIR));
  return router;
}
