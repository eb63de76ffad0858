import type { RequestHandler } from 'express';
import { type Logger, pino } from 'pino';
import { fullPath } from './request-id.ts';

// Secrets never reach the logs: headers that carry them and any field named like one are censored.
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  '*.apiKey',
  '*.api_key',
  '*.key',
  '*.secret',
  '*.password',
  '*.token',
  '*.botToken',
];

export function createLogger(service: string, level: string, destination?: NodeJS.WritableStream): Logger {
  const options = {
    level,
    base: { service },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
  };
  return destination ? pino(options, destination as pino.DestinationStream) : pino(options);
}

// Requests whose success is routine (a page's poll, a health probe, a static file) and so logged at debug: a page
// left open polls every few seconds, and at info those lines buried the start summary and every warning.
const quietResponses = new WeakSet<object>();

/** Marks this request as routine: if it succeeds (status < 400) its request line is logged at debug. */
export function logQuietly(res: Parameters<RequestHandler>[1]): void {
  quietResponses.add(res);
}

/** Middleware form of logQuietly, for routes and routers whose every success is routine. */
export const quietLog: RequestHandler = (_req, res, next) => {
  logQuietly(res);
  next();
};

/**
 * Wraps a handler that may pass the request on (express.static does when it has no such file): its own answers
 * are routine, but whatever answers after it is logged as usual.
 */
export function servedQuietly(handler: RequestHandler): RequestHandler {
  return (req, res, next) => {
    logQuietly(res);
    return handler(req, res, (err?: unknown) => {
      quietResponses.delete(res);
      next(err);
    });
  };
}

/** error for 5xx, info for 4xx and for successes, debug for the successes of routine requests (logQuietly). */
export function requestLogLevel(res: Parameters<RequestHandler>[1]): 'error' | 'info' | 'debug' {
  const status = res.statusCode;
  if (status >= 500) return 'error';
  return status < 400 && quietResponses.has(res) ? 'debug' : 'info';
}

// One line per request, written when the response finishes. The query string is dropped from the logged
// path because a caller may (wrongly) put a key there.
export function requestLogger(
  logger: Logger,
  context: (req: Parameters<RequestHandler>[0]) => Record<string, unknown> = () => ({}),
): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const status = res.statusCode;
      const level = requestLogLevel(res);
      // debug lines below the logger's level are not even built
      if (!logger.isLevelEnabled(level)) return;
      logger[level](
        {
          request_id: req.id,
          method: req.method,
          path: fullPath(req),
          status,
          duration_ms: Math.round(ms * 10) / 10,
          ...context(req),
        },
        'request',
      );
    });
    next();
  };
}
