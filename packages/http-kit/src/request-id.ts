import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

declare global {
  namespace Express {
    interface Request {
      id: string;
    }
  }
}

// Accept a caller's X-Request-Id when it is short and harmless (it ends up in logs), else make one.
export const requestId: RequestHandler = (req, res, next) => {
  const incoming = req.get('x-request-id');
  req.id = incoming && SAFE_ID.test(incoming) ? incoming : randomUUID();
  res.setHeader('X-Request-Id', req.id);
  next();
};

/** The full request path without the query string (req.path is relative inside a mounted router). */
export function fullPath(req: { originalUrl: string }): string {
  const q = req.originalUrl.indexOf('?');
  return q === -1 ? req.originalUrl : req.originalUrl.slice(0, q);
}
