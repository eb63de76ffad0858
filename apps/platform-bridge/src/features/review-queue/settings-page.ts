import type { RouteSpec } from '@pa/contracts';
import { registerRoute, servedQuietly } from '@pa/http-kit';
import express, { Router } from 'express';
import helmet from 'helmet';
import path from 'node:path';

// What the platform's settings pages (the review queue, remote access) share: each is a folder of static files —
// index.html, its ES modules and its stylesheet — served at its path under one strict CSP.

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

// Served to anyone: a page reads nothing until the admin pastes a key, and every call it makes goes to the admin
// API, which checks the key and its scopes.
export function createSettingsPage(route: RouteSpec & { path: string }, webDir: string): Router {
  const router = Router();
  router.use(route.path, PAGE_CSP);
  registerRoute(router, route, (_input, _req, res) => {
    res.sendFile(path.join(webDir, 'index.html'), { headers: { 'Cache-Control': 'no-cache' } });
  });
  // its files are logged at debug when served, like the page itself (the route's logQuietly)
  router.use(route.path, servedQuietly(express.static(webDir, { index: false, maxAge: 0 })));
  return router;
}
