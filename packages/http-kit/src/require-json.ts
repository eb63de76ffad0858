import express, { type RequestHandler } from 'express';
import { UnsupportedMediaType } from './errors.ts';

/** JSON bodies only: anything else is 415, before the body schema is even looked at. */
export const requireJson: RequestHandler = (req, _res, next) => {
  if (!req.is('application/json'))
    throw new UnsupportedMediaType('unsupported-media-type', 'Send the body as application/json.');
  next();
};

/**
 * For a route whose body may be left out (it would be `{}`): no body passes as `{}`, one that is there must be
 * JSON like any other. Place before jsonBody.
 */
export const optionalJson: RequestHandler = (req, res, next) => {
  const hasBody =
    req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
  if (hasBody) return requireJson(req, res, next);
  req.body = {};
  next();
};

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Throws body-parser's `entity.parse.failed` (answered 400 malformed-json) for bytes that are not UTF-8: decoding
 * them would store U+FFFD in place of what the client sent.
 */
export function assertUtf8(bytes: Uint8Array): void {
  try {
    UTF8.decode(bytes);
  } catch {
    throw Object.assign(new Error('The request body is not valid UTF-8.'), {
      type: 'entity.parse.failed',
      status: 400,
    });
  }
}

/** UTF-8 only: a declared charset other than utf-8 is 415 (body-parser would decode UTF-16 and UTF-32 too). */
export function charsetIsUtf8(contentType: string | undefined): boolean {
  const charset = /;\s*charset\s*=\s*"?([^";\s]*)"?/i.exec(contentType ?? '')?.[1];
  return charset === undefined || charset.toLowerCase() === 'utf-8';
}

const parseJson = express.json({ limit: '64kb', verify: (_req, _res, buf) => assertUtf8(buf) });

/**
 * The JSON body parser (64 KiB at most, UTF-8 only, invalid UTF-8 refused), placed on the routes that take a body
 * rather than in front of every request: a GET then never passes through it.
 */
export const jsonBody: RequestHandler = (req, res, next) => {
  // req.is is null without a body: a GET with a stray Content-Type passes, as body-parser lets it
  if (req.is('application/json') && !charsetIsUtf8(req.headers['content-type']))
    throw new UnsupportedMediaType('unsupported-media-type', 'Send UTF-8 JSON.');
  parseJson(req, res, next);
};
