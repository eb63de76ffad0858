import type { RequestHandler } from 'express';

/**
 * Express 5's `req.query` is a getter that parses the query string again on every read. A request read by more
 * than one middleware (the bridge's check for keys pasted into the URL, then the route's validation) would parse it
 * each time; this parses it once and keeps the result on the request.
 */
export const queryOnce: RequestHandler = (req, _res, next) => {
  Object.defineProperty(req, 'query', {
    value: req.query,
    writable: true,
    enumerable: true,
    configurable: true,
  });
  next();
};
