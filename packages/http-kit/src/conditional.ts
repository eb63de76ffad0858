import type { Request, Response } from 'express';

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
 * Sends `value` as JSON with the app's ETag (Express's `etag` setting, weak by default), or 304 with no body when
 * a GET or HEAD names that tag in `If-None-Match`, whatever its cache directives.
 */
export function sendJsonWithETag(req: Request, res: Response, value: unknown): void {
  const body = JSON.stringify(value);
  const etagFn = req.app.get('etag fn') as ((body: Buffer, encoding?: string) => string) | undefined;
  if (!etagFn) {
    res.json(value);
    return;
  }
  const etag = etagFn(Buffer.from(body, 'utf8'));
  res.setHeader('ETag', etag);
  if ((req.method === 'GET' || req.method === 'HEAD') && ifNoneMatchMatches(req.get('if-none-match'), etag)) {
    res.status(304).end();
    return;
  }
  res.type('application/json').send(body);
}
