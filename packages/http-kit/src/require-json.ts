import type { RequestHandler } from 'express';
import { AppError } from './errors.ts';

/** JSON bodies only: anything else is 415, before the body schema is even looked at. */
export const requireJson: RequestHandler = (req, _res, next) => {
  if (!req.is('application/json')) {
    throw new AppError(
      415,
      'unsupported-media-type',
      'Unsupported media type',
      'Send the body as application/json.',
    );
  }
  next();
};
