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
      logger[status >= 500 ? 'error' : 'info'](
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
