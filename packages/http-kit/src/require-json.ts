import express, { type RequestHandler } from 'express';
import { UnsupportedMediaType } from './errors.ts';

/** JSON bodies only: anything else is 415, before the body schema is even looked at. */
export const requireJson: RequestHandler = (req, _res, next) => {
  if (!req.is('application/json'))
    throw new UnsupportedMediaType('unsupported-media-type', 'Send the body as application/json.');
  next();
};

/**
 * The JSON body parser (64 KiB at most), placed on the routes that take a body rather than in front of every request:
 * a GET then never passes through it.
 */
export const jsonBody: RequestHandler = express.json({ limit: '64kb' });
