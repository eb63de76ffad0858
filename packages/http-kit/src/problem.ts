import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { AppError, type FieldError } from './errors.ts';
import { fullPath } from './request-id.ts';

export const PROBLEM_TYPE_BASE = '/problems/';

export function sendProblem(
  res: Response,
  requestId: string,
  instance: string,
  p: {
    status: number;
    code: string;
    title: string;
    detail: string;
    errors?: FieldError[];
    members?: Record<string, unknown>;
  },
): void {
  res
    .status(p.status)
    .type('application/problem+json')
    .json({
      type: `${PROBLEM_TYPE_BASE}${p.code}`,
      title: p.title,
      status: p.status,
      detail: p.detail,
      instance,
      code: p.code,
      request_id: requestId,
      ...(p.errors ? { errors: p.errors } : {}),
      ...p.members,
    });
}

export const notFoundHandler: RequestHandler = (req, res) => {
  sendProblem(res, req.id, fullPath(req), {
    status: 404,
    code: 'not-found',
    title: 'Not found',
    detail: `No route for ${req.method} ${fullPath(req)}.`,
  });
};

// The one place errors become responses. Express's own body-parser errors carry `type`; everything
// unexpected is logged with its stack and answered as a bare 500.
export function problemHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    if (res.headersSent) {
      logger.error({ err, request_id: req.id }, 'error after response started');
      res.end();
      return;
    }
    const instance = fullPath(req);
    if (err instanceof AppError) {
      for (const [k, v] of Object.entries(err.extra.headers ?? {})) res.setHeader(k, v);
      sendProblem(res, req.id, instance, {
        status: err.status,
        code: err.code,
        title: err.title,
        detail: err.message,
        ...(err.extra.errors ? { errors: err.extra.errors } : {}),
        ...(err.extra.members ? { members: err.extra.members } : {}),
      });
      return;
    }
    const type = (err as { type?: string }).type;
    if (type === 'entity.parse.failed') {
      sendProblem(res, req.id, instance, {
        status: 400,
        code: 'malformed-json',
        title: 'Malformed JSON',
        detail: 'The request body is not valid JSON.',
      });
      return;
    }
    if (type === 'entity.too.large') {
      sendProblem(res, req.id, instance, {
        status: 413,
        code: 'payload-too-large',
        title: 'Payload too large',
        detail: 'The request body is larger than 64 KiB.',
      });
      return;
    }
    if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
      sendProblem(res, req.id, instance, {
        status: 415,
        code: 'unsupported-media-type',
        title: 'Unsupported media type',
        detail: 'Send UTF-8 JSON.',
      });
      return;
    }
    logger.error({ err, request_id: req.id }, 'unhandled error');
    sendProblem(res, req.id, instance, {
      status: 500,
      code: 'internal-error',
      title: 'Internal server error',
      detail: 'Something went wrong on our side. Quote the request id when reporting it.',
    });
  };
}
