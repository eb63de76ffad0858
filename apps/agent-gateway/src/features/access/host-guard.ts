import { Forbidden } from '@pa/http-kit';
import type { RequestHandler } from 'express';

// Against DNS rebinding: a page on evil.example whose name is made to resolve to 127.0.0.1 reaches this gateway
// from the browser as same-origin, but its requests carry `Host: evil.example`. Only the names in ALLOWED_HOSTS
// are served (403 `host-not-allowed`, a problem like every other refusal of this API). The health probes answer
// any name: orchestrators call them by a container's name, and they reveal nothing.

const PROBES = new Set(['/healthz', '/readyz']);

export function hostGuard(allowedHosts: readonly string[]): RequestHandler {
  const allowed = new Set(allowedHosts.map((h) => h.toLowerCase()));
  return (req, _res, next) => {
    if (PROBES.has(req.path)) return next();
    // req.hostname: the Host header without its port (X-Forwarded-Host behind a trusted proxy)
    const host = req.hostname?.toLowerCase();
    if (!host || !allowed.has(host)) {
      throw new Forbidden(
        'host-not-allowed',
        'This gateway does not answer to that host name (ALLOWED_HOSTS).',
      );
    }
    next();
  };
}
