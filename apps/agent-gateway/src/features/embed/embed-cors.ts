import type { RequestHandler } from 'express';
import type { EmbedKeysService } from './embed-keys-service.ts';

// CORS for the embedded chat's API (/api/embed/*), in place of CORS_ORIGIN's: a host page may call it directly
// from the origins its embed key names, and only those. A preflight carries no key, so it is answered for an
// origin some live key names; the call itself then gets `Access-Control-Allow-Origin` only when its own key names
// the origin (the embed check refuses it otherwise). Never `*`, never credentials: the key and the visitor travel
// in headers, not cookies. The embed's own iframe is on the gateway's origin and needs none of this.

const ALLOWED_HEADERS = 'Content-Type, X-Embed-Key, X-Embed-Visitor-Token, X-Embed-Visitor';
const EXPOSED_HEADERS = 'Retry-After, X-Request-Id';
const PREFLIGHT_MAX_AGE_S = 600;

export function embedCors(deps: {
  embedKeys: Pick<EmbedKeysService, 'authenticate' | 'originAllowed'>;
}): RequestHandler {
  return async (req, res, next) => {
    res.vary('Origin');
    const origin = req.get('origin');
    if (origin === undefined) return next();
    if (req.method === 'OPTIONS') {
      if (req.get('access-control-request-method') !== undefined) {
        if (await deps.embedKeys.originAllowed(origin)) {
          res.set({
            'Access-Control-Allow-Origin': origin,
            'Access-Control-Allow-Methods': 'POST',
            'Access-Control-Allow-Headers': ALLOWED_HEADERS,
            'Access-Control-Max-Age': String(PREFLIGHT_MAX_AGE_S),
          });
        }
        res.status(204).end();
        return;
      }
      return next();
    }
    const raw = req.get('x-embed-key');
    const key = raw ? await deps.embedKeys.authenticate(raw.trim()) : null;
    if (key?.origins.includes(origin)) {
      res.set({ 'Access-Control-Allow-Origin': origin, 'Access-Control-Expose-Headers': EXPOSED_HEADERS });
    }
    next();
  };
}
