import { EMBED_ANONYMOUS_VISITOR } from '@pa/contracts';
import { Forbidden, MalformedInput, Unauthorized } from '@pa/http-kit';
import type { Request, RequestHandler } from 'express';
import type { ActiveEmbedKey, EmbedKeysService } from './embed-keys-service.ts';
import { verifyVisitorToken } from './visitor-token.ts';

// Who calls the embedded chat's API (docs/embedding.md), checked on every call before anything else: the embed key
// (X-Embed-Key, live), the page the call comes from (Origin: the gateway's own, i.e. the embed's iframe, or one of
// the key's origins; a call without Origin comes from no browser page and is refused too), and the visitor: the
// host's visitor token (X-Embed-Visitor-Token, verified with the key's secret) or, for an anonymous embed, the
// random id the iframe keeps (X-Embed-Visitor). A key that requires a visitor token refuses the anonymous id: the
// key is public and an Origin is forged easily outside a browser, so only the host's signature keeps a staff-only
// embed (an intranet, a key that may propose) to the people the host signed in. The visitor's conversations are
// owned by `embed:<key>:sub:<sub>` (a token's visitor) or `embed:<key>:anon:<id>` (an anonymous one): another
// visitor's, or another key's, do not exist for it. The two kinds have namespaces of their own, so that no `sub`
// the host signs (`anon:<id>` included) can name an anonymous visitor's conversations.

export interface EmbedCaller {
  key: ActiveEmbedKey;
  visitor: {
    /** the sessions' owner: `embed:<keyId>:sub:<sub>` or `embed:<keyId>:anon:<id>` */
    owner: string;
    /** the name the visitor token gave, if any */
    name: string | null;
  };
}

declare global {
  namespace Express {
    interface Request {
      embed?: EmbedCaller;
    }
  }
}

/** The embed caller the embed check set; a route reached without it is a wiring mistake. */
export function embedCallerOf(req: Request): EmbedCaller {
  if (!req.embed) throw new Error('The embed check did not run for this request.');
  return req.embed;
}

/** The gateway's own origin as the browser sees it (TRUST_PROXY decides whether X-Forwarded-* count). */
export const ownOrigin = (req: Request) => `${req.protocol}://${req.host ?? ''}`;

/** The origin of PUBLIC_BASE_URL, if it is set (config.ts has checked it is a URL). */
export const publicOrigin = (publicBaseUrl: string | undefined) =>
  publicBaseUrl === undefined ? undefined : new URL(publicBaseUrl).origin;

/**
 * Whether a call from `origin` may use `key`: the embed's own iframe (the gateway's origin as this request shows it,
 * or PUBLIC_BASE_URL's: behind a TLS proxy that TRUST_PROXY does not trust the request looks like http:// while the
 * browser's iframe is on https://), or a page on one of the key's origins.
 */
export function embedOriginAllowed(
  req: Request,
  key: Pick<ActiveEmbedKey, 'origins'>,
  origin: string,
  gatewayOrigin?: string,
) {
  return origin === ownOrigin(req) || origin === gatewayOrigin || key.origins.includes(origin);
}

export const keyRefused = () =>
  new Unauthorized(
    'embed-key-invalid',
    'The embed key is not valid: it is unknown, revoked or mistyped. Ask the site’s admin for the current snippet.',
  );

export const visitorTokenRequired = () =>
  new Unauthorized(
    'embed-visitor-token-required',
    'This embed key is for signed-in visitors only: the site must sign its visitors in and pass their visitor token (X-Embed-Visitor-Token).',
  );

export function embedCheck(deps: {
  embedKeys: Pick<EmbedKeysService, 'authenticate'>;
  /** PUBLIC_BASE_URL: its origin is the gateway's own too */
  publicBaseUrl?: string | undefined;
}): RequestHandler {
  const gatewayOrigin = publicOrigin(deps.publicBaseUrl);
  return async (req, _res, next) => {
    const raw = req.get('x-embed-key');
    const key = raw ? await deps.embedKeys.authenticate(raw.trim()) : null;
    if (!key) throw keyRefused();
    const origin = req.get('origin');
    if (origin === undefined || !embedOriginAllowed(req, key, origin, gatewayOrigin)) {
      throw new Forbidden(
        'embed-origin-not-allowed',
        origin === undefined
          ? 'Calls to the embedded chat must come from a web page (an Origin header is required).'
          : `This embed key is not enabled for ${origin}.`,
      );
    }
    const token = req.get('x-embed-visitor-token');
    if (token !== undefined) {
      const visitor = await verifyVisitorToken(token.trim(), key.secret);
      req.embed = { key, visitor: { owner: `embed:${key.id}:sub:${visitor.sub}`, name: visitor.name } };
      return next();
    }
    if (key.requireVisitorToken) throw visitorTokenRequired();
    const anonymous = req.get('x-embed-visitor');
    if (anonymous === undefined) {
      throw new Unauthorized(
        'embed-visitor-required',
        'Say who the visitor is: X-Embed-Visitor-Token (a visitor token) or X-Embed-Visitor (an anonymous id).',
      );
    }
    if (!EMBED_ANONYMOUS_VISITOR.test(anonymous)) {
      throw new MalformedInput(
        'embed-visitor-invalid',
        'X-Embed-Visitor must be 22–64 characters of A–Z, a–z, 0–9, `-` and `_`.',
        { title: 'Invalid visitor id' },
      );
    }
    req.embed = { key, visitor: { owner: `embed:${key.id}:anon:${anonymous}`, name: null } };
    next();
  };
}
