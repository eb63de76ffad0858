import type { Express, Request, Response } from 'express';

// Conditional GET evaluated by the origin itself (RFC 9110 §13.1.2). Express's own check (req.fresh) gives up
// when the request carries `Cache-Control: no-cache`, which fetch adds to every conditional request it makes, so
// fetch clients would never see 304. The request's cache directives are for caches, not for the origin.

const ENTITY_TAG = /^\s*(?:W\/)?("[\x21\x23-\x7e\x80-\xff]*")\s*$/;

/** The opaque tag (with its quotes) of an entity-tag, or undefined when it is not one. */
function opaque(tag: string): string | undefined {
  return ENTITY_TAG.exec(tag)?.[1];
}

/**
 * Whether `If-None-Match` matches the representation's `etag`, by weak comparison (W/ ignored): `*` matches any
 * current representation; otherwise the comma-separated list must contain the tag.
 */
export function ifNoneMatchMatches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  const current = opaque(etag);
  if (current === undefined) return false;
  // entity-tags cannot contain commas, so a split is exact
  return header.split(',').some((t) => opaque(t) === current);
}

/**
 * Makes the app's freshness check (`req.fresh`, which `res.send`/`res.json` consult to answer 304) evaluate
 * `If-None-Match` as the origin must: by weak comparison, whatever the request's cache directives. Without that
 * header the check is Express's own (If-Modified-Since). Applies to every route of `app` and its routers.
 */
export function evaluateConditionalsAtOrigin(app: Express): void {
  const expressFresh = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(app.request), 'fresh')?.get;
  Object.defineProperty(app.request, 'fresh', {
    configurable: true,
    enumerable: true,
    get(this: Request): boolean {
      const header = this.headers['if-none-match'];
      if (header === undefined) return expressFresh ? (expressFresh.call(this) as boolean) : false;
      const { method } = this;
      if (method !== 'GET' && method !== 'HEAD') return false;
      const status = this.res!.statusCode;
      if (!((status >= 200 && status < 300) || status === 304)) return false;
      const etag = this.res!.get('ETag');
      return etag !== undefined && ifNoneMatchMatches(header, etag);
    },
  });
}

/**
 * Sends `body` as JSON without the ETag Express would add. For a representation stamped with the moment it was
 * read (`as_of`): it differs on every request, so its ETag could never match an If-None-Match, and hashing the
 * body for it (SHA-1 over tens of kilobytes for a portfolio page) would be wasted work. `body` must be what
 * `res.json` would accept, so that a contract route's handler stays bound to its entry's 200 body.
 */
export function sendJsonWithoutEtag<Body>(
  res: Response & { json: (body?: Body) => unknown },
  body: NoInfer<Body>,
): void {
  res.type('json').end(JSON.stringify(body));
}
