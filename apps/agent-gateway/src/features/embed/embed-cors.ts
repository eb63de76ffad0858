import { RateLimited } from '@pa/http-kit';
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import type { EmbedKeysService } from './embed-keys-service.ts';

// CORS for the embedded chat's API (/api/embed/*), in place of CORS_ORIGIN's: a host page may call it directly
// from the origins its embed key names, and only those. A preflight carries no key, so it is answered for an
// origin some live key names; the call itself then gets `Access-Control-Allow-Origin` only when its own key names
// the origin (the embed check refuses it otherwise). Never `*`, never credentials: the key and the visitor travel
// in headers, not cookies. The embed's own iframe is on the gateway's origin and needs none of this.

const ALLOWED_HEADERS = 'Content-Type, X-Embed-Key, X-Embed-Visitor-Token, X-Embed-Visitor';
const EXPOSED_HEADERS = 'Retry-After, X-Request-Id';
const PREFLIGHT_MAX_AGE_S = 600;

const isPreflight = (req: Request) =>
  req.method === 'OPTIONS' && req.get('access-control-request-method') !== undefined;

function answerPreflight(res: Response, origin: string): void {
  res.set({
    'Access-Control-Allow-Origin': origin,
    'Access-Control-Allow-Methods': 'POST',
    'Access-Control-Allow-Headers': ALLOWED_HEADERS,
    'Access-Control-Max-Age': String(PREFLIGHT_MAX_AGE_S),
  });
  res.status(204).end();
}

export function embedCors(deps: {
  embedKeys: Pick<EmbedKeysService, 'authenticate' | 'originAllowed'>;
}): RequestHandler {
  return async (req, res, next) => {
    res.vary('Origin');
    const origin = req.get('origin');
    if (origin === undefined) return next();
    if (req.method === 'OPTIONS') {
      if (isPreflight(req)) {
        if (await deps.embedKeys.originAllowed(origin)) return answerPreflight(res, origin);
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

/**
 * The per-IP gate's refusal (createEmbedIpLimit, which runs before embedCors and any key lookup) made readable to a
 * host page: a 429 from an origin some live key names gets `Access-Control-Allow-Origin` and its Retry-After
 * exposed, or the browser would show a CORS error instead. The key is not looked up (that is what the gate
 * protects): the origin is checked as a preflight's is, from originAllowed's periodic read of every live key's
 * origins, so a flood of refused calls, made-up origins included, costs no query of its own.
 *
 * A refused preflight from such an origin is answered as a preflight (204), not 429: a browser takes any preflight
 * answer that is not 2xx as a network error, CORS headers or not, so the page would never learn it was limited. The
 * preflight still counts against the IP's budget and costs no more than its 429 would; the call it lets through is
 * refused in turn, with a 429 the page can read.
 */
export function embedRefusalCors(deps: {
  embedKeys: Pick<EmbedKeysService, 'originAllowed'>;
}): ErrorRequestHandler {
  return async (err: unknown, req, res, next) => {
    const origin = req.get('origin');
    if (!(err instanceof RateLimited) || origin === undefined) return next(err);
    res.vary('Origin');
    // the database unreachable: the 429 as it is, rather than a 503 for a call refused anyway
    const allowed = await deps.embedKeys.originAllowed(origin).catch(() => false);
    if (!allowed) return next(err);
    if (isPreflight(req)) return answerPreflight(res, origin);
    res.set({ 'Access-Control-Allow-Origin': origin, 'Access-Control-Expose-Headers': EXPOSED_HEADERS });
    next(err);
  };
}
