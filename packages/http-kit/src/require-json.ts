import type { RequestHandler } from 'express';
import { UnsupportedMediaType } from './errors.ts';

/** JSON bodies only: anything else is 415, before the body schema is even looked at. */
export const requireJson: RequestHandler = (req, _res, next) => {
  if (!req.is('application/json'))
    throw new UnsupportedMediaType('unsupported-media-type', 'Send the body as application/json.');
  next();
};
